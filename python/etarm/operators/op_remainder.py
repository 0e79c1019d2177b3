"""aten.remainder (Python-style modulo, sign of the divisor).

float: a - floor(a / b) * b (a / b as a * RECIPROCAL(b): a quotient within 1 ulp of an
integer can floor differently from torch's fmod-based kernel, and the result carries
~|a| ulp of rounding); int32: INTDIV remainder corrected toward -inf (int_math).
"""

import torch

from etarm.lowering.pointwise import ModuloVisitor
from etarm.lowering.registry import register


@register
class RemainderVisitor(ModuloVisitor):
    targets = ("aten.remainder.Tensor", "aten.remainder.Scalar")
    function = torch.remainder
    floors = True
