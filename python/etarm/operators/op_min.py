"""aten.min: min.dim gives values (REDUCE_MIN) and indices (ARGMAX of the negation); min.default reduces all axes.

(The binary aten.minimum is a different operator.)
"""

from etarm.lowering.reduction import ExtremeVisitor
from etarm.lowering.registry import register


@register
class MinVisitor(ExtremeVisitor):
    targets = ("aten.min.dim", "aten.min.default")
    largest = False
