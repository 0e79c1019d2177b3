"""aten.argmin: TOSA ARGMAX of the negated input; dim=None flattens first."""

from etarm.operators.reduction import ArgExtremeVisitor
from etarm.operators.registry import register


@register
class ArgminVisitor(ArgExtremeVisitor):
    targets = ("aten.argmin.default",)
    largest = False
