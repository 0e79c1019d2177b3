"""aten.add: TOSA ADD (``alpha * other`` is a MUL first).

Quantized: both operands are rescaled to one int32 scale (alpha folded into the
other's), added, and rescaled into the output (additive.py, operators/quantized.py).
"""

import tosa_serializer as ts

from etarm.lowering.additive import AdditiveVisitor
from etarm.lowering.registry import register


@register
class AddVisitor(AdditiveVisitor):
    targets = ("aten.add.Tensor", "aten.add.Scalar")
    name = "aten.add"
    op = ts.Op.ADD
    opposite_op = ts.Op.SUB
