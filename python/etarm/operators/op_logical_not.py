"""aten.logical_not: TOSA LOGICAL_NOT on the operand read as bool (!= 0)."""

import tosa_serializer as ts

from etarm.lowering.logic import LogicalVisitor
from etarm.lowering.registry import register


@register
class LogicalNotVisitor(LogicalVisitor):
    targets = ("aten.logical_not.default",)
    bool_op = ts.Op.LOGICAL_NOT
