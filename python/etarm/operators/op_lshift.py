"""aten.__lshift__: LOGICAL_LEFT_SHIFT of integers (see shifts.py)."""

from etarm.lowering.registry import register
from etarm.lowering.shifts import LeftShiftVisitor


@register
class LshiftVisitor(LeftShiftVisitor):
    targets = ("aten.__lshift__.Scalar", "aten.__lshift__.Tensor")
