"""aten.upsample_bilinear2d (interpolate mode="bilinear", antialias=False): TOSA RESIZE BILINEAR."""

from etarm.operators import resize
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments


def _plan(node):
    args = call_arguments(node)
    return resize.bilinear_plan(node, bool(args["align_corners"]), args["scale_factors"])


@register
class UpsampleBilinear2dVisitor(NodeVisitor):
    targets = ("aten.upsample_bilinear2d.vec",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        reason = resize.resize_input_reason(node)
        if reason:
            return reason
        plan = _plan(node)
        return plan if isinstance(plan, str) else None

    def define(self, node, graph):
        resize.lower_resize(graph, node, _plan(node))
