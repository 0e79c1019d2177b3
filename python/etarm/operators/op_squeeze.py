"""aten.squeeze (every overload, copy variants included): TOSA RESHAPE to the result's shape."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class SqueezeVisitor(shapes.ReshapeVisitor):
    targets = (
        "aten.squeeze_copy.dims",
        "aten.squeeze_copy.dim",
        "aten.squeeze_copy.default",
        "aten.squeeze.dims",
        "aten.squeeze.dim",
        "aten.squeeze.default",
    )
