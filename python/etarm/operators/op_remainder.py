"""aten.remainder (Python-style modulo, sign of the divisor).

float: a - floor(a / b) * b (a / b as a * RECIPROCAL(b): a quotient within 1 ulp of an
integer can floor differently from torch's fmod-based kernel, and the result carries
~|a| ulp of rounding); int32: INTDIV remainder corrected toward -inf (int_math).
Quantized (INT): a lookup of torch.remainder (pointwise.ModuloVisitor); two int16 tensors stay on CPU.
"""

import torch

from etarm.lowering import int_math
from etarm.lowering.pointwise import ModuloVisitor
from etarm.lowering.registry import register


@register
class RemainderVisitor(ModuloVisitor):
    targets = ("aten.remainder.Tensor", "aten.remainder.Scalar")
    function = torch.remainder

    def round_quotient(self, c, quotient):
        return c.floor(quotient)

    def integer_remainder(self, c, a, b):
        return int_math.floor_remainder(c, a, b)
