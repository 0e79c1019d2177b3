"""The visitor aten.add and aten.sub share: ``a (op) alpha * b``.

FP: TOSA ADD/SUB (``alpha * other`` is a MUL first). Quantized: both operands are rescaled
to one int32 scale (alpha folded into the other's), combined, and rescaled into the output
(quantized.py); a negative alpha swaps ADD and SUB, its magnitude going into the scale.
"""

from typing import ClassVar

import tosa_serializer as ts

from etarm.lowering.elementwise import binary, times_alpha
from etarm.lowering.quantized import add_or_sub, is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor

_OPPOSITE = {ts.Op.ADD: ts.Op.SUB, ts.Op.SUB: ts.Op.ADD}


class AdditiveVisitor(NodeVisitor):
    """Subclasses name the op (``aten_name``, e.g. "add": its Tensor and Scalar overloads are the
    targets) and its TOSA ``op``."""

    handles_qparams = True
    aten_name: ClassVar[str]
    op: ts.Op

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.targets = (f"aten.{cls.aten_name}.Tensor", f"aten.{cls.aten_name}.Scalar")

    def check(self, node, spec):
        if is_int_spec(spec) and node.kwargs.get("alpha", 1) == 0:
            return f"aten.{self.aten_name}: alpha=0 is not lowered for the INT profile"
        return None

    def define(self, node, graph):
        alpha = node.kwargs.get("alpha", 1)
        if is_quantized(node):
            add_or_sub(graph, node, self.op if alpha >= 0 else _OPPOSITE[self.op], alpha)
            return
        other = times_alpha(graph, node, node.args[1], alpha)
        binary(graph, node, self.op, node.args[0], other, graph.out(node))
