"""aten.linear, kept whole: input @ weight.T + bias as ONE MATMUL on the flattened rows.

Kept whole instead of ExecuTorch's view/permute/addmm/view: the weight transpose folds
into the constant at compile time and no reshapes of the input are needed around it.
"""

import torch

from etarm.operators import tensor_math as tm
from etarm.operators.matmul import batched_matmul, operands_reason
from etarm.operators.registry import NodeVisitor, register


@register
class LinearVisitor(NodeVisitor):
    targets = ("aten.linear.default",)
    profiles = frozenset({"FP"})
    preserved_ops = (torch.ops.aten.linear.default,)

    def check(self, node, spec):
        bias = tm.argument(node, 2, "bias")
        operands = [("input", node.args[0]), ("weight", node.args[1])] + ([("bias", bias)] if bias is not None else [])
        return (
            operands_reason(node, operands[1:2], ranks=(2,))
            or (bias is not None and operands_reason(node, operands[2:], ranks=(1,)))
            or operands_reason(node, operands)
        )

    def define(self, node, graph):
        x = graph.value(node.args[0])
        weight_t = tm.swap_last_two(graph, graph.value(node.args[1]))  # [K, O]
        rows = tm.to_rank(graph, x, 2) if x.rank == 1 else x
        result = batched_matmul(graph, rows, weight_t)
        bias = tm.argument(node, 2, "bias")
        if bias is not None:
            result = tm.add(graph, result, graph.value(bias))
        tm.bind_result(graph, node, result)
