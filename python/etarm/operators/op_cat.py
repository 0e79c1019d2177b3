"""aten.cat (torch.stack decomposes to unsqueeze + cat): TOSA CONCAT."""

import torch

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument


@register
class CatVisitor(NodeVisitor):
    targets = ("aten.cat.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        tensors = list(node.args[0])
        dtype = shapes.fake(node).dtype
        for i, t in enumerate(tensors):
            if shapes.fake(t).dtype != dtype:
                # torch promotes mixed dtypes inside cat; CONCAT moves one dtype.
                return f"input {i} dtype {shapes.fake(t).dtype} differs from the result dtype {dtype}"
        if dtype == torch.int16 and not spec.has_extension("int16"):
            return "int16 CONCAT needs the TOSA int16 extension"
        rank = shapes.fake(node).dim()
        reason = shapes.dim_reason(argument(node, 1, "dim", 0), rank)
        return reason or shapes.layout_reason(node, spec, *tensors)

    def define(self, node, graph):
        tensors = [graph.value(t) for t in node.args[0]]
        axis = shapes.normalize_dim(argument(node, 1, "dim", 0), tensors[0].rank)
        graph.bind(node, shapes.concat(graph, tensors, axis))
