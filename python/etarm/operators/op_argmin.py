"""aten.argmin: TOSA ARGMAX of the negated input; dim=None flattens first."""

from etarm.lowering.reduction import ArgExtremeVisitor
from etarm.lowering.registry import register


@register
class ArgminVisitor(ArgExtremeVisitor):
    targets = ("aten.argmin.default",)
    largest = False
