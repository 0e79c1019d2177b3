"""aten.round: half-to-even via CAST float->int32 (which rounds that way) below 2^23.

round.decimals scales by 10^d first, exactly as torch does (x * 10^d, rounded, / 10^d;
negative d divides first); FP16/BF16 scale in FP32, as torch's CPU kernel does: 10^d * x
rounded to BF16's 8 bits would pick another integer. Quantized (INT): a lookup table of the function
(quantized_lookup.py; int16 takes the exact 65536-entry form, steps defeat interpolation).
"""

import torch
import tosa_serializer as ts

from etarm.lowering import float_math
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized_lookup import LookupLowering
from etarm.lowering.registry import register


def _decimals(node) -> int:
    return int(node.args[1] if len(node.args) > 1 else node.kwargs.get("decimals", 0))


@register
class RoundVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.round.default", "aten.round.decimals")

    def quantized_function(self, node):
        decimals = _decimals(node)
        if decimals == 0:
            return torch.round
        return lambda x: torch.round(x, decimals=decimals)

    def compute(self, c, x):
        decimals = _decimals(c.node)
        if decimals == 0:
            return float_math.round_half_even(c, x)
        scale = 10.0 ** abs(decimals)
        wide = c.convert(x, ts.DType.FP32)
        if decimals > 0:
            result = float_math.divide(c, float_math.round_half_even(c, c.mul(wide, scale)), scale)
        else:
            result = c.mul(float_math.round_half_even(c, float_math.divide(c, wide, scale)), scale)
        return c.convert(result, c.tensor(x).dtype)
