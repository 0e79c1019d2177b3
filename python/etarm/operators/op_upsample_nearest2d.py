"""aten.upsample_nearest2d (interpolate mode="nearest"): TOSA RESIZE NEAREST."""

from etarm.operators import resize
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments


def _plan(node):
    return resize.nearest_plan(node, call_arguments(node)["scale_factors"])


@register
class UpsampleNearest2dVisitor(NodeVisitor):
    targets = ("aten.upsample_nearest2d.vec",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        reason = resize.resize_input_reason(node)
        if reason:
            return reason
        plan = _plan(node)
        return plan if isinstance(plan, str) else None

    def define(self, node, graph):
        resize.lower_resize(graph, node, _plan(node))
