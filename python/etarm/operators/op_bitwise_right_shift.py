"""aten.bitwise_right_shift: arithmetic right shift of integers (see shifts.py)."""

from etarm.lowering.registry import register
from etarm.lowering.shifts import RightShiftVisitor


@register
class BitwiseRightShiftVisitor(RightShiftVisitor):
    targets = ("aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar", "aten.bitwise_right_shift.Scalar_Tensor")
