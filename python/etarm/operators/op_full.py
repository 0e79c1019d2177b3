"""aten.full (torch.full, zeros, ones, new_full, ...): a constant."""

from etarm.operators.constant_ops import ConstantVisitor
from etarm.operators.registry import register


@register
class FullVisitor(ConstantVisitor):
    targets = ("aten.full.default",)
