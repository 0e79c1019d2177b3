"""aten.scalar_tensor: a rank-0 constant."""

from etarm.operators.constant_ops import ConstantVisitor
from etarm.operators.registry import register


@register
class ScalarTensorVisitor(ConstantVisitor):
    targets = ("aten.scalar_tensor.default",)
