"""aten.sum: REDUCE_SUM over each reduced axis (keepdim=False reshapes the kept axes away).

Quantized: REDUCE_SUM of the int32 ``q - zero_point``, then one RESCALE by
``input scale / output scale`` (reduction.lower_quantized_sum).
"""

from etarm.lowering.reduction import SumReductionVisitor
from etarm.lowering.registry import register


@register
class SumVisitor(SumReductionVisitor):
    targets = ("aten.sum.dim_IntList", "aten.sum.default")
    average = False
