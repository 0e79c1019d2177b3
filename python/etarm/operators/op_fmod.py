"""aten.fmod (C-style remainder, sign of the dividend).

float: a - trunc(a / b) * b (same rounding caveats as remainder); int32: INTDIV remainder.
"""

import torch

from etarm.lowering.pointwise import ModuloVisitor
from etarm.lowering.registry import register


@register
class FmodVisitor(ModuloVisitor):
    targets = ("aten.fmod.Tensor", "aten.fmod.Scalar")
    function = torch.fmod
    floors = False
