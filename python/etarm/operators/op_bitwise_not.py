"""aten.bitwise_not: TOSA LOGICAL_NOT on bools, BITWISE_NOT on integers (INT profile)."""

import tosa_serializer as ts

from etarm.lowering.logic import BitwiseVisitor
from etarm.lowering.registry import register


@register
class BitwiseNotVisitor(BitwiseVisitor):
    targets = ("aten.bitwise_not.default",)
    bool_op = ts.Op.LOGICAL_NOT
    int_op = ts.Op.BITWISE_NOT
