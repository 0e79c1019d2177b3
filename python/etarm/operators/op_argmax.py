"""aten.argmax: TOSA ARGMAX (drops the axis, INT32 result); dim=None flattens first."""

from etarm.lowering.reduction import ArgExtremeVisitor
from etarm.lowering.registry import register


@register
class ArgmaxVisitor(ArgExtremeVisitor):
    targets = ("aten.argmax.default",)
    largest = True
