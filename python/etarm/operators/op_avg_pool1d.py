"""aten.avg_pool1d, kept whole: TOSA AVG_POOL2D over a height-1 image."""

import torch

from etarm.operators import pooling
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments


def _window(node):
    args = call_arguments(node)
    return pooling.PoolWindow.of(node, 1, args["kernel_size"], args["stride"], args["padding"], node.meta["val"]), args


@register
class AvgPool1dVisitor(NodeVisitor):
    targets = ("aten.avg_pool1d.default",)
    profiles = frozenset({"FP"})
    preserved_ops = (torch.ops.aten.avg_pool1d.default,)

    def check(self, node, spec):
        reason = pooling.pool_input_reason(node, 1)
        if reason:
            return reason
        window, args = _window(node)
        return pooling.avg_pool_reason(node, window, args["count_include_pad"], None)

    def define(self, node, graph):
        window, args = _window(node)
        pooling.avg_pool(graph, node, window, graph.out(node), args["count_include_pad"])
