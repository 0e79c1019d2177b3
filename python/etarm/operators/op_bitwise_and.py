"""aten.bitwise_and: TOSA LOGICAL_AND on bools, BITWISE_AND on integers (INT profile)."""

import tosa_serializer as ts

from etarm.lowering.logic import BitwiseVisitor
from etarm.lowering.registry import register


@register
class BitwiseAndVisitor(BitwiseVisitor):
    targets = ("aten.bitwise_and.Tensor", "aten.bitwise_and.Scalar")
    bool_op = ts.Op.LOGICAL_AND
    int_op = ts.Op.BITWISE_AND
