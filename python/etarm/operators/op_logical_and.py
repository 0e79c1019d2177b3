"""aten.logical_and: TOSA LOGICAL_AND on the operands read as bools (!= 0)."""

import tosa_serializer as ts

from etarm.lowering.logic import LogicalVisitor
from etarm.lowering.registry import register


@register
class LogicalAndVisitor(LogicalVisitor):
    targets = ("aten.logical_and.default",)
    bool_op = ts.Op.LOGICAL_AND
