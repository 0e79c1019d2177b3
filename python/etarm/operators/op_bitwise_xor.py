"""aten.bitwise_xor: TOSA LOGICAL_XOR on bools, BITWISE_XOR on integers (INT profile)."""

import tosa_serializer as ts

from etarm.lowering.logic import BitwiseVisitor
from etarm.lowering.registry import register


@register
class BitwiseXorVisitor(BitwiseVisitor):
    targets = ("aten.bitwise_xor.Tensor", "aten.bitwise_xor.Scalar")
    bool_op = ts.Op.LOGICAL_XOR
    int_op = ts.Op.BITWISE_XOR
