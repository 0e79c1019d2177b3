"""aten._softmax: exp(x - max) times the RECIPROCAL of its sum (TOSA 1.0 has no division).

Quantized (INT): lowered whole in int32 (integer_softmax.py: byte-wise exp TABLEs, a
fixed-point reciprocal, one RESCALE into the output), within ~1 LSB of the float softmax.
"""

from etarm.lowering.integer_softmax import SoftmaxFamilyVisitor
from etarm.lowering.registry import register


@register
class SoftmaxVisitor(SoftmaxFamilyVisitor):
    targets = ("aten._softmax.default",)
    log = False
