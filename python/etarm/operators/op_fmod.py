"""aten.fmod (C-style remainder, sign of the dividend).

float: a - trunc(a / b) * b (same rounding caveats as remainder); int32: INTDIV remainder.
Quantized (INT): a lookup of torch.fmod (pointwise.ModuloVisitor); two int16 tensors stay on CPU.
"""

import torch

from etarm.lowering import int_math
from etarm.lowering.pointwise import ModuloVisitor
from etarm.lowering.registry import register


@register
class FmodVisitor(ModuloVisitor):
    targets = ("aten.fmod.Tensor", "aten.fmod.Scalar")
    function = torch.fmod

    def round_quotient(self, c, quotient):
        return c.trunc(quotient)

    def integer_remainder(self, c, a, b):
        return int_math.truncated_division(c, a, b)[1]
