"""aten.max_pool2d_with_indices (what max_pool2d becomes): TOSA MAX_POOL2D.

Only the values are lowered: a node whose indices are used stays on CPU.
"""

import operator

from etarm.lowering import pooling
from etarm.lowering.registry import register
from etarm.tosa_ir.mapping import tosa_dtype


@register
class MaxPool2dWithIndicesVisitor(pooling.MaxPoolVisitor):
    targets = ("aten.max_pool2d_with_indices.default",)
    spatial_rank = 2

    def result_value(self, node):
        return node.meta["val"][0]

    def check(self, node, spec):
        for user in node.users:
            if user.target is not operator.getitem or user.args[1] != 0:
                return "the indices output (return_indices=True) is not supported"
        return super().check(node, spec)

    def define(self, node, graph):
        values = self.result_value(node)
        out = graph.temp(tuple(values.shape), tosa_dtype(values.dtype), stem=node.name)
        self.pool_into(node, graph, out)
        graph.bind_item(node, 0, out)
