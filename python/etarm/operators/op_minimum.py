"""aten.minimum: TOSA MINIMUM; NaN propagates, as in torch."""

from etarm.lowering.pointwise import ElementwiseExtremumVisitor
from etarm.lowering.registry import register


@register
class MinimumVisitor(ElementwiseExtremumVisitor):
    targets = ("aten.minimum.default",)
    largest = False
