"""aten.argmax: TOSA ARGMAX (drops the axis, INT32 result); dim=None flattens first."""

from etarm.operators.reduction import ArgExtremeVisitor
from etarm.operators.registry import register


@register
class ArgmaxVisitor(ArgExtremeVisitor):
    targets = ("aten.argmax.default",)
    largest = True
