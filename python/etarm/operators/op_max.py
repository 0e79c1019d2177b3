"""aten.max: max.dim gives values (REDUCE_MAX) and indices (ARGMAX); max.default reduces all axes.

(The binary aten.maximum is a different operator.)
"""

from etarm.lowering.reduction import ExtremeVisitor
from etarm.lowering.registry import register


@register
class MaxVisitor(ExtremeVisitor):
    targets = ("aten.max.dim", "aten.max.default")
    largest = True
