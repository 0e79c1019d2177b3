"""aten._upsample_nearest_exact2d (interpolate mode="nearest-exact"), kept whole: TOSA RESIZE NEAREST."""

import torch

from etarm.lowering import resize
from etarm.lowering.registry import register
from etarm.lowering.spatial import call_arguments


@register
class UpsampleNearestExact2dVisitor(resize.ResizeVisitor):
    targets = ("aten._upsample_nearest_exact2d.vec",)
    preserved_ops = (torch.ops.aten._upsample_nearest_exact2d.vec,)

    def plan(self, node):
        return resize.nearest_plan(node, call_arguments(node)["scale_factors"], exact=True)
