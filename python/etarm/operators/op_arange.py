"""aten.arange: a constant."""

from etarm.operators.constant_ops import ConstantVisitor
from etarm.operators.registry import register


@register
class ArangeVisitor(ConstantVisitor):
    targets = ("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
