"""aten.__rshift__: arithmetic right shift of integers (see shifts.py)."""

from etarm.operators.registry import register
from etarm.operators.shifts import RightShiftVisitor


@register
class RshiftVisitor(RightShiftVisitor):
    targets = ("aten.__rshift__.Scalar", "aten.__rshift__.Tensor")
