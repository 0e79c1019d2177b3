"""aten.var: two-pass variance (mean, squared deviations, REDUCE_SUM, times 1/(N - correction)).

Quantized (INT): exact integer deviations N x - sum(x), their squares summed on int32 and
one RESCALE into the output (normalization.lower_quantized_variance).
"""

from etarm.lowering.normalization import VarianceVisitor
from etarm.lowering.registry import register


@register
class VarVisitor(VarianceVisitor):
    targets = ("aten.var.correction",)
    root = False
