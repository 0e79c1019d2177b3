"""aten.unsqueeze (and unsqueeze_copy): TOSA RESHAPE to the result's shape."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class UnsqueezeVisitor(shapes.ReshapeVisitor):
    targets = ("aten.unsqueeze_copy.default", "aten.unsqueeze.default")
