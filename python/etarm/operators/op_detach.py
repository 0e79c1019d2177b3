"""aten.detach (and detach_copy): no TOSA operator (gradients do not exist at inference)."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class DetachVisitor(shapes.PassThroughVisitor):
    targets = ("aten.detach_copy.default", "aten.detach.default")
