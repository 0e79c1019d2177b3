"""aten.upsample_nearest2d (interpolate mode="nearest"): TOSA RESIZE NEAREST."""

from etarm.lowering import resize
from etarm.lowering.registry import register
from etarm.lowering.spatial import call_arguments


@register
class UpsampleNearest2dVisitor(resize.ResizeVisitor):
    targets = ("aten.upsample_nearest2d.vec",)

    def plan(self, node):
        return resize.nearest_plan(node, call_arguments(node)["scale_factors"])
