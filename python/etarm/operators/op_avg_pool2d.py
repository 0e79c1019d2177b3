"""aten.avg_pool2d: TOSA AVG_POOL2D (see pooling.py for padding, ceil_mode, divisor_override)."""

from etarm.operators import pooling
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments


def _window(node):
    args = call_arguments(node)
    return pooling.PoolWindow.of(node, 2, args["kernel_size"], args["stride"], args["padding"], node.meta["val"]), args


@register
class AvgPool2dVisitor(NodeVisitor):
    targets = ("aten.avg_pool2d.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        reason = pooling.pool_input_reason(node, 2)
        if reason:
            return reason
        window, args = _window(node)
        return pooling.avg_pool_reason(node, window, args["count_include_pad"], args["divisor_override"])

    def define(self, node, graph):
        window, args = _window(node)
        pooling.avg_pool(graph, node, window, graph.out(node), args["count_include_pad"], args["divisor_override"])
