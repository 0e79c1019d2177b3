"""aten.std: the variance lowering, then sqrt as RECIPROCAL(RSQRT(v)) (TOSA has no SQRT).

Kept whole (instead of var + sqrt) so it does not depend on a sqrt lowering.
Quantized (INT): the integer variance, then a fixed-point square root (CLZ, int8 TABLE
guess, Newton) before the RESCALE into the output (normalization.lower_quantized_variance).
"""

import torch

from etarm.lowering.normalization import VarianceVisitor
from etarm.lowering.registry import register


@register
class StdVisitor(VarianceVisitor):
    targets = ("aten.std.correction",)
    preserved_ops = (torch.ops.aten.std.correction,)
    root = True
