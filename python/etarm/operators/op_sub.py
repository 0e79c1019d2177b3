"""aten.sub: TOSA SUB (``alpha * other`` is a MUL first).

Quantized: as add (additive.py, operators/quantized.py), with SUB on the common int32 scale.
"""

import tosa_serializer as ts

from etarm.lowering.additive import AdditiveVisitor
from etarm.lowering.registry import register


@register
class SubVisitor(AdditiveVisitor):
    targets = ("aten.sub.Tensor", "aten.sub.Scalar")
    name = "aten.sub"
    op = ts.Op.SUB
    opposite_op = ts.Op.ADD
