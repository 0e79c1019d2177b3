"""aten.sub: TOSA SUB (``alpha * other`` is a MUL first).

Quantized: as add (additive.py, quantized.py), with SUB on the common int32 scale.
"""

import tosa_serializer as ts

from etarm.lowering.additive import AdditiveVisitor
from etarm.lowering.registry import register


@register
class SubVisitor(AdditiveVisitor):
    aten_name = "sub"
    op = ts.Op.SUB
