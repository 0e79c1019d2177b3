"""aten._log_softmax: (x - max) - log(sum(exp(x - max))).

Quantized (INT): lowered whole in int32 (integer_softmax.py: byte-wise exp TABLEs, a
fixed-point ln of the row sum, one RESCALE into the output), within ~1 LSB of the float op.
"""

from etarm.lowering.integer_softmax import lower_quantized_softmax, quantized_softmax_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.reduction import lower_softmax, softmax_reason
from etarm.lowering.registry import NodeVisitor, register


@register
class LogSoftmaxVisitor(NodeVisitor):
    targets = ("aten._log_softmax.default",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        reason = softmax_reason(node)
        if reason is None and is_int_spec(spec):
            reason = quantized_softmax_reason(node)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            lower_quantized_softmax(graph, node, log=True)
            return
        lower_softmax(graph, node, log=True)
