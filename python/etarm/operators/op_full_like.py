"""aten.full_like (zeros_like, ones_like, ...): a constant of the input's shape."""

from etarm.operators.constant_ops import ConstantVisitor
from etarm.operators.registry import register


@register
class FullLikeVisitor(ConstantVisitor):
    targets = ("aten.full_like.default",)
