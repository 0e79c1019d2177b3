"""aten.mish, kept whole: x * tanh(softplus(x)), softplus as torch's (x beyond 20).

Quantized (INT): a lookup table (quantized_lookup.py). Decomposed, its input would feed
softplus and the product with no quantization between them, which INT cannot take.
"""

import torch

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register

_SOFTPLUS_THRESHOLD = 20.0


@register
class MishVisitor(FloatFunctionVisitor):
    aten_name = "mish"
    preserved_ops = (torch.ops.aten.mish.default,)

    def compute(self, c, x):
        soft = c.select(c.gt(x, _SOFTPLUS_THRESHOLD), x, float_math.log1p(c, c.exp(x)))
        return c.mul(x, c.tanh(soft))
