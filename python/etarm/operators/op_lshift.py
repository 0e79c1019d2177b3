"""aten.__lshift__: LOGICAL_LEFT_SHIFT of integers (see shifts.py)."""

from etarm.operators.registry import register
from etarm.operators.shifts import LeftShiftVisitor


@register
class LshiftVisitor(LeftShiftVisitor):
    targets = ("aten.__lshift__.Scalar", "aten.__lshift__.Tensor")
