"""aten.amin: REDUCE_MIN (NaN-propagating, like torch) over each reduced axis."""

import tosa_serializer as ts

from etarm.lowering.reduction import AxesReductionVisitor
from etarm.lowering.registry import register


@register
class AminVisitor(AxesReductionVisitor):
    targets = ("aten.amin.default",)
    reduce_op = ts.Op.REDUCE_MIN
