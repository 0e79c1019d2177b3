"""aten.full_like (zeros_like, ones_like, ...): a constant of the input's shape."""

from etarm.lowering.constant_ops import ConstantVisitor
from etarm.lowering.registry import register


@register
class FullLikeVisitor(ConstantVisitor):
    targets = ("aten.full_like.default",)
    # Quantized models keep a float full_like on CPU (constant_ops._tensor_args).
    handles_qparams = False
