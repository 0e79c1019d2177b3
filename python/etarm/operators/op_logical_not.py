"""aten.logical_not: TOSA LOGICAL_NOT on the operand read as bool (!= 0)."""

import tosa_serializer as ts

from etarm.operators.logic import LogicalVisitor
from etarm.operators.registry import register


@register
class LogicalNotVisitor(LogicalVisitor):
    targets = ("aten.logical_not.default",)
    bool_op = ts.Op.LOGICAL_NOT
