"""aten.select (and select_copy): TOSA SLICE of one element, RESHAPE drops the axis."""

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class SelectVisitor(NodeVisitor):
    targets = ("aten.select_copy.int", "aten.select.int")
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x = shapes.fake(node.args[0])
        dim, index = node.args[1], node.args[2]
        reason = shapes.dim_reason(dim, x.dim())
        if reason:
            return reason
        if x.dim() == 0:
            return "select on a 0-d tensor"
        if not isinstance(index, int) or not -x.shape[dim] <= index < x.shape[dim]:
            return f"index {index!r} is not a constant integer within the axis"
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        axis = shapes.normalize_dim(node.args[1], x.rank)
        index = node.args[2] % x.shape[axis]
        shapes.bind_reshaped(graph, node, shapes.narrow(graph, x, axis, index, 1))
