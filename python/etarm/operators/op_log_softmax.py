"""aten._log_softmax: (x - max) - log(sum(exp(x - max))).

Quantized (INT): lowered whole in int32 (integer_softmax.py: byte-wise exp TABLEs, a
fixed-point ln of the row sum, one RESCALE into the output), within ~1 LSB of the float op.
"""

from etarm.lowering.integer_softmax import SoftmaxFamilyVisitor
from etarm.lowering.registry import register


@register
class LogSoftmaxVisitor(SoftmaxFamilyVisitor):
    targets = ("aten._log_softmax.default",)
    log = True
