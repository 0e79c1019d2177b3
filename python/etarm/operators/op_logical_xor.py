"""aten.logical_xor: TOSA LOGICAL_XOR on the operands read as bools (!= 0)."""

import tosa_serializer as ts

from etarm.lowering.logic import LogicalVisitor
from etarm.lowering.registry import register


@register
class LogicalXorVisitor(LogicalVisitor):
    targets = ("aten.logical_xor.default",)
    bool_op = ts.Op.LOGICAL_XOR
