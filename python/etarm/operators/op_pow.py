"""aten.pow.

Float: a constant exponent uses products (small integers), 1/RSQRT (0.5), RSQRT (-0.5) or
POW on a positive base; tensor exponents use the general composition in float_math.power,
which keeps TOSA POW inside its domain (it is UNPREDICTABLE for a base <= 0).
int32 (wrapping like torch): products for a constant exponent in [0, 16] (int32 MUL is in
both TOSA 1.0 profiles).
Quantized (INT): with a number base or exponent, pow is a function of one tensor, looked
up (quantized_lookup.py); two int8 tensors index a 256 x 256 table of every result (exact).
Two int16 tensors would need a 2^32-entry table and stay on CPU.
"""

import numbers

import torch

from etarm.lowering import float_math
from etarm.lowering.dtype_rules import ANY_PROFILE, FLOAT, FP, INT
from etarm.lowering.pointwise import BinaryVisitor
from etarm.lowering.quantized_lookup import PairLookupLowering
from etarm.lowering.registry import register
from etarm.op_names import op_name

_MAX_INTEGER_EXPONENT = 16


@register
class PowVisitor(PairLookupLowering, BinaryVisitor):
    targets = ("aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar")
    rule = {FLOAT: FP, INT: ANY_PROFILE}
    function = torch.pow
    pair_description = "a tensor to the power of a tensor"

    def unquantized_reason(self, node, spec):
        if not node.meta["val"].dtype.is_floating_point:
            base, exponent = node.args[:2]
            constant_exponent = isinstance(exponent, int) and 0 <= exponent <= _MAX_INTEGER_EXPONENT
            if not (constant_exponent and isinstance(base, torch.fx.Node)):
                return (
                    f"{op_name(node.target)}: integer powers need a constant exponent in "
                    f"[0, {_MAX_INTEGER_EXPONENT}], not {exponent!r}"
                )
        return super().unquantized_reason(node, spec)

    def compute(self, c, base, exponent):
        if not c.out_meta.dtype.is_floating_point:
            if exponent == 0:
                return c.filled(1, c.out_dtype)
            return float_math.integer_power(c, base, exponent)
        if isinstance(exponent, numbers.Number):
            return float_math.power_of_constant(c, base, float(exponent))
        if isinstance(base, numbers.Number):
            base = c.tensor(float(base), c.out_dtype)
        return float_math.power(c, base, exponent)
