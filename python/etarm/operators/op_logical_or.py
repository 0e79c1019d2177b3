"""aten.logical_or: TOSA LOGICAL_OR on the operands read as bools (!= 0)."""

import tosa_serializer as ts

from etarm.lowering.logic import LogicalVisitor
from etarm.lowering.registry import register


@register
class LogicalOrVisitor(LogicalVisitor):
    targets = ("aten.logical_or.default",)
    bool_op = ts.Op.LOGICAL_OR
