"""aten.copy (what an in-place op on a graph input becomes: ``x.mul_(y)`` writes its result
back with ``copy(x, result)``): the source's values in the destination's dtype and shape,
converted as torch converts and broadcast by TOSA TILE."""

from etarm.lowering import shapes
from etarm.lowering.compose import Composer, conversion_reason
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register


@register
class CopyVisitor(NodeVisitor):
    targets = ("aten.copy.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        source, result = shapes.fake(node.args[1]), shapes.fake(node)
        reason = shapes.layout_reason(node, spec, node.args[1])
        return reason or conversion_reason(source.dtype, result.dtype, spec)

    def define(self, node, graph):
        c = Composer(graph, node)
        values = graph.to_rank(c.convert(node.args[1], c.out_dtype), len(shapes.fake(node).shape))
        multiples = [o if d == 1 else 1 for d, o in zip(values.shape, shapes.fake(node).shape)]
        c.finish(shapes.tile(graph, values, multiples))
