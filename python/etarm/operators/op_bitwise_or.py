"""aten.bitwise_or: TOSA LOGICAL_OR on bools, BITWISE_OR on integers (INT profile)."""

import tosa_serializer as ts

from etarm.lowering.logic import BitwiseVisitor
from etarm.lowering.registry import register


@register
class BitwiseOrVisitor(BitwiseVisitor):
    targets = ("aten.bitwise_or.Tensor", "aten.bitwise_or.Scalar")
    bool_op = ts.Op.LOGICAL_OR
    int_op = ts.Op.BITWISE_OR
