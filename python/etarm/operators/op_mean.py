"""aten.mean: REDUCE_SUM times the constant 1/N (TOSA 1.0 has no division).

Quantized: REDUCE_SUM of the int32 ``q - zero_point``, then one RESCALE by
``input scale / (N * output scale)`` (reduction.lower_quantized_sum).
"""

from etarm.lowering.reduction import SumReductionVisitor
from etarm.lowering.registry import register


@register
class MeanVisitor(SumReductionVisitor):
    targets = ("aten.mean.dim", "aten.mean.default")
    average = True
