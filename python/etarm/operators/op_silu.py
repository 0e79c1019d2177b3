"""aten.silu, kept whole: x * SIGMOID(x); quantized (INT), a lookup table (quantized_lookup.py).

Decomposed, its input would feed both sigmoid and the product with no quantization
between them, which the INT profile cannot take; whole, it is a single TABLE.
"""

import torch

from etarm.lowering.pointwise import FloatFunctionVisitor
from etarm.lowering.registry import register


@register
class SiluVisitor(FloatFunctionVisitor):
    aten_name = "silu"
    preserved_ops = (torch.ops.aten.silu.default,)

    def compute(self, c, x):
        return c.mul(x, c.sigmoid(x))
