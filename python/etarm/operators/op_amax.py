"""aten.amax: REDUCE_MAX (NaN-propagating, like torch) over each reduced axis."""

import tosa_serializer as ts

from etarm.lowering.reduction import AxesReductionVisitor
from etarm.lowering.registry import register


@register
class AmaxVisitor(AxesReductionVisitor):
    targets = ("aten.amax.default",)
    reduce_op = ts.Op.REDUCE_MAX
