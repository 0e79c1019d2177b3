"""aten.view (view_copy, _unsafe_view, reshape): TOSA RESHAPE to the result's shape."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class ViewVisitor(shapes.ReshapeVisitor):
    targets = ("aten.view_copy.default", "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
