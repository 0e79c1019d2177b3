"""aten.scalar_tensor: a rank-0 constant."""

from etarm.lowering.constant_ops import ConstantVisitor
from etarm.lowering.registry import register


@register
class ScalarTensorVisitor(ConstantVisitor):
    targets = ("aten.scalar_tensor.default",)
