"""aten.upsample_bilinear2d (interpolate mode="bilinear", antialias=False): TOSA RESIZE BILINEAR.

Quantized: integer RESIZE BILINEAR and one RESCALE (resize.lower_quantized_bilinear).
"""

from etarm.lowering import resize
from etarm.lowering.registry import register
from etarm.lowering.spatial import call_arguments


@register
class UpsampleBilinear2dVisitor(resize.BilinearResizeVisitor):
    targets = ("aten.upsample_bilinear2d.vec",)

    def plan(self, node):
        args = call_arguments(node)
        return resize.bilinear_plan(node, bool(args["align_corners"]), args["scale_factors"])
