"""aten.matmul, kept whole: torch.matmul semantics (1-D operands, broadcast batch dims) on MATMUL.

ExecuTorch would otherwise decompose it into expand/clone/view/bmm (or mul+sum for 1-D
operands); whole, a shared right operand folds the left batch into rows with no copies.
Quantized (INT): MATMUL with the zero points into int32 (int48), one RESCALE.
"""

import torch

from etarm.lowering import tensor_math as tm
from etarm.lowering.matmul import batched_matmul, operands_reason, quantized_matmul, quantized_operands_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register


@register
class MatmulVisitor(NodeVisitor):
    targets = ("aten.matmul.default",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True
    preserved_ops = (torch.ops.aten.matmul.default,)

    def check(self, node, spec):
        operands = [("self", node.args[0]), ("other", node.args[1])]
        reason = operands_reason(node, operands, ranks=(1, 2, 3, 4, 5, 6))
        if reason is None and is_int_spec(spec):
            return quantized_operands_reason(node, operands)
        return reason

    def define(self, node, graph):
        a, b = graph.value(node.args[0]), graph.value(node.args[1])
        if a.rank == 1:  # a row vector; torch drops the row dim again (bind_result's reshape)
            a = graph.reshape(a, (1,) + a.shape)
        if b.rank == 1:  # a column vector
            b = graph.reshape(b, b.shape + (1,))
        if is_quantized(node):
            quantized_matmul(graph, node, a, b)
            return
        tm.bind_result(graph, node, batched_matmul(graph, a, b))
