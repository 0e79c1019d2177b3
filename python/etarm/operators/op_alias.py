"""aten.alias (and alias_copy; detach becomes alias_copy in edge graphs): no TOSA operator."""

from etarm.lowering import shapes
from etarm.lowering.registry import register


@register
class AliasVisitor(shapes.PassThroughVisitor):
    targets = ("aten.alias_copy.default", "aten.alias.default")
