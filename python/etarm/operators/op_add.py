"""aten.add: TOSA ADD (``alpha * other`` is a MUL first).

Quantized: both operands are rescaled to one int32 scale (alpha folded into the
other's), added, and rescaled into the output (additive.py, quantized.py).
"""

import tosa_serializer as ts

from etarm.lowering.additive import AdditiveVisitor
from etarm.lowering.registry import register


@register
class AddVisitor(AdditiveVisitor):
    aten_name = "add"
    op = ts.Op.ADD
