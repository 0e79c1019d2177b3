"""aten._upsample_nearest_exact2d (interpolate mode="nearest-exact"), kept whole: TOSA RESIZE NEAREST."""

import torch

from etarm.operators import resize
from etarm.operators.registry import NodeVisitor, register
from etarm.operators.spatial import call_arguments


def _plan(node):
    return resize.nearest_plan(node, call_arguments(node)["scale_factors"], exact=True)


@register
class UpsampleNearestExact2dVisitor(NodeVisitor):
    targets = ("aten._upsample_nearest_exact2d.vec",)
    profiles = frozenset({"FP"})
    preserved_ops = (torch.ops.aten._upsample_nearest_exact2d.vec,)

    def check(self, node, spec):
        reason = resize.resize_input_reason(node)
        if reason:
            return reason
        plan = _plan(node)
        return plan if isinstance(plan, str) else None

    def define(self, node, graph):
        resize.lower_resize(graph, node, _plan(node))
