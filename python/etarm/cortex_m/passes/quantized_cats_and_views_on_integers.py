"""QuantizedCatsAndViewsOnIntegers: a cat or view_copy between dequantize and quantize nodes of equal parameters
(CortexMQuantizer shares a concat's and a view's parameters with their inputs) runs on the int8 / int16 tensors
themselves: the portable cat kernel copies bytes, to_executorch makes the view free, and no value goes through float.
The values move unchanged, so the result equals the PT2E model's bit for bit."""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import REASON, lower_each, pattern_problem, replace_pattern
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

# A nearest-neighbour upsample copies input values too.
_OPS = ("aten.cat.default", "aten.view_copy.default", "aten.upsample_nearest2d.vec")
_ON_INTEGERS = "moves the quantized values unchanged on the integer tensors (no float)"


class QuantizedCatsAndViewsOnIntegers(ProgramPass):
    """Replaces dequantize -> cat / view_copy -> quantize (equal parameters) by the op on the integer tensors."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, _OPS, lambda node: self._lower(graph, node))

    @staticmethod
    def _lower(graph: torch.fx.Graph, node: torch.fx.Node) -> str | None:
        first, *rest = node.args
        operands = list(first) if isinstance(first, (list, tuple)) else [first]
        if all(o.meta["val"].dtype in (torch.int8, torch.int16) for o in operands):
            return _ON_INTEGERS  # already (a rewrite's view of its integer result)
        problem = pattern_problem(node, operands, (torch.int8, torch.int16))
        if problem is not None:
            return problem
        out = qparams_of(next(iter(node.users)))
        if any(qparams_of(operand) != out for operand in operands):
            return "an input is quantized unlike its output (a requantizing concat or view has no cortex_m kernel)"
        integers = [operand.args[0] for operand in operands]
        values = integers if isinstance(first, (list, tuple)) else integers[0]
        replacement = replace_pattern(graph, node, node.target, [values, *rest])
        replacement.meta[REASON] = _ON_INTEGERS
        return None
