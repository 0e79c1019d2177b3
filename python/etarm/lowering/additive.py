"""The visitor aten.add and aten.sub share: ``a (op) alpha * b``.

FP: TOSA ADD/SUB (``alpha * other`` is a MUL first). Quantized: both operands are rescaled
to one int32 scale (alpha folded into the other's), combined, and rescaled into the output
(quantized.py); a negative alpha swaps ADD and SUB, its magnitude going into the scale.
"""

import tosa_serializer as ts

from etarm.lowering.elementwise import binary, times_alpha
from etarm.lowering.quantized import add_or_sub, is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor


class AdditiveVisitor(NodeVisitor):
    """Subclasses name the op (``name``, e.g. "aten.add"), its TOSA ``op`` and ``opposite_op``."""

    handles_qparams = True
    name: str
    op: ts.Op
    opposite_op: ts.Op

    def check(self, node, spec):
        if is_int_spec(spec) and node.kwargs.get("alpha", 1) == 0:
            return f"{self.name}: alpha=0 is not lowered for the INT profile"
        return None

    def define(self, node, graph):
        alpha = node.kwargs.get("alpha", 1)
        if is_quantized(node):
            add_or_sub(graph, node, self.op if alpha >= 0 else self.opposite_op, alpha)
            return
        other = times_alpha(graph, node, node.args[1], alpha)
        binary(graph, node, self.op, node.args[0], other, graph.out(node))
