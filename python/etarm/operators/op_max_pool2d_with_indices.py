"""aten.max_pool2d_with_indices (what max_pool2d becomes): TOSA MAX_POOL2D.

Only the values are lowered: a node whose indices are used stays on CPU.
"""

import operator

from etarm.operators import pooling
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments
from etarm.tosa.mapping import tosa_dtype


def _window(node):
    args = call_arguments(node)
    return pooling.PoolWindow.of(node, 2, args["kernel_size"], args["stride"], args["padding"], node.meta["val"][0]), args


@register
class MaxPool2dWithIndicesVisitor(NodeVisitor):
    targets = ("aten.max_pool2d_with_indices.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        for user in node.users:
            if user.target is not operator.getitem or user.args[1] != 0:
                return "the indices output (return_indices=True) is not supported"
        reason = pooling.pool_input_reason(node, 2)
        if reason:
            return reason
        window, args = _window(node)
        return pooling.max_pool_reason(node, window, args["dilation"])

    def define(self, node, graph):
        window, _ = _window(node)
        values = node.meta["val"][0]
        out = graph.temp(tuple(values.shape), tosa_dtype(values.dtype), stem=node.name)
        pooling.max_pool(graph, node, window, out)
        graph.bind_item(node, 0, out)
