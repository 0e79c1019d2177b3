"""aten.max_pool1d, kept whole: TOSA MAX_POOL2D over a height-1 image."""

import torch

from etarm.operators import pooling
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments


def _window(node):
    args = call_arguments(node)
    return pooling.PoolWindow.of(node, 1, args["kernel_size"], args["stride"], args["padding"], node.meta["val"]), args


@register
class MaxPool1dVisitor(NodeVisitor):
    targets = ("aten.max_pool1d.default",)
    profiles = frozenset({"FP"})
    preserved_ops = (torch.ops.aten.max_pool1d.default,)

    def check(self, node, spec):
        reason = pooling.pool_input_reason(node, 1)
        if reason:
            return reason
        window, args = _window(node)
        return pooling.max_pool_reason(node, window, args["dilation"])

    def define(self, node, graph):
        window, _ = _window(node)
        pooling.max_pool(graph, node, window, graph.out(node))
