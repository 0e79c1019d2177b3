"""aten.mm: one rank-3 MATMUL ([1, M, K] x [1, K, N]); quantized (INT), MATMUL with the zero
points into int32 (int48) and one RESCALE (matmul.quantized_matmul)."""

from etarm.lowering import tensor_math as tm
from etarm.lowering.matmul import batched_matmul, operands_reason, quantized_matmul, quantized_operands_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register


@register
class MmVisitor(NodeVisitor):
    targets = ("aten.mm.default",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        operands = [("self", node.args[0]), ("mat2", node.args[1])]
        reason = operands_reason(node, operands, ranks=(2,))
        if reason is None and is_int_spec(spec):
            return quantized_operands_reason(node, operands)
        return reason

    def define(self, node, graph):
        a, b = graph.value(node.args[0]), graph.value(node.args[1])
        if is_quantized(node):
            quantized_matmul(graph, node, a, b)
            return
        tm.bind_result(graph, node, batched_matmul(graph, a, b))
