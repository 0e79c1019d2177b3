"""aten.hardtanh (relu6 too): TOSA CLAMP to [min_val, max_val]; quantized (INT), a CLAMP in
the output's integer domain (clamping.py)."""

from etarm.lowering.clamping import bound_reason, define_clamp
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized import QuantizedLowering
from etarm.lowering.registry import register


def _bounds(node):
    low = node.args[1] if len(node.args) > 1 else node.kwargs.get("min_val", -1.0)
    high = node.args[2] if len(node.args) > 2 else node.kwargs.get("max_val", 1.0)
    return low, high


@register
class HardtanhVisitor(QuantizedLowering, FloatUnaryVisitor):
    targets = ("aten.hardtanh.default",)
    profiles = frozenset({"FP", "INT"})

    def check(self, node, spec):
        low, high = _bounds(node)
        reason = bound_reason(node, ("min_val", low), ("max_val", high))
        if reason:
            return reason
        if low > high:
            return f"aten.hardtanh.default: min_val {low} > max_val {high}"
        return super().check(node, spec)

    def define_quantized(self, node, graph):
        define_clamp(graph, node, *_bounds(node))

    def compute(self, c, x):
        low, high = _bounds(c.node)
        return c.clamp(x, float(low), float(high))
