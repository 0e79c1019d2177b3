"""aten.bitwise_left_shift: LOGICAL_LEFT_SHIFT of integers (see shifts.py)."""

from etarm.lowering.registry import register
from etarm.lowering.shifts import LeftShiftVisitor


@register
class BitwiseLeftShiftVisitor(LeftShiftVisitor):
    targets = ("aten.bitwise_left_shift.Tensor", "aten.bitwise_left_shift.Tensor_Scalar", "aten.bitwise_left_shift.Scalar_Tensor")
