"""aten.argmax: TOSA ARGMAX (drops the axis, INT32 result); dim=None flattens first."""

from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.reduction import ArgExtremeVisitor
from etarm.lowering.registry import register


@register
class ArgmaxVisitor(ArgExtremeVisitor):
    targets = ("aten.argmax.default",)
    extension_floats = EXTENSION_FLOATS
    largest = True
