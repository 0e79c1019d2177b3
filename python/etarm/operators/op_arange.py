"""aten.arange: a constant."""

from etarm.lowering.constant_ops import ConstantVisitor
from etarm.lowering.registry import register


@register
class ArangeVisitor(ConstantVisitor):
    targets = ("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
