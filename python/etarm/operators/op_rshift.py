"""aten.__rshift__: arithmetic right shift of integers (see shifts.py)."""

from etarm.lowering.registry import register
from etarm.lowering.shifts import RightShiftVisitor


@register
class RshiftVisitor(RightShiftVisitor):
    targets = ("aten.__rshift__.Scalar", "aten.__rshift__.Tensor")
