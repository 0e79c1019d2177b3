"""aten.maximum: TOSA MAXIMUM; NaN propagates, as in torch."""

from etarm.lowering.pointwise import ElementwiseExtremumVisitor
from etarm.lowering.registry import register


@register
class MaximumVisitor(ElementwiseExtremumVisitor):
    targets = ("aten.maximum.default",)
    largest = True
