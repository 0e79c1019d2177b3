"""QuantizedCatsAndViewsOnIntegers: a cat or view_copy between dequantize and quantize nodes of equal parameters
(CortexMQuantizer shares a concat's and a view's parameters with their inputs) runs on the int8 / int16 tensors
themselves: the portable cat kernel copies bytes, to_executorch makes the view free, and no value goes through float.
The values move unchanged, so the result equals the PT2E model's bit for bit."""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import REASON, lower_each, pattern_problem, replace_pattern
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

# Slices, selects and nearest-neighbour upsamples copy input values too.
_OPS = (
    "aten.cat.default",
    "aten.view_copy.default",
    "aten.slice_copy.Tensor",
    "aten.select_copy.int",
    "aten.upsample_nearest2d.vec",
)
_ON_INTEGERS = "moves the quantized values unchanged on the integer tensors (no float)"


class QuantizedCatsAndViewsOnIntegers(ProgramPass):
    """Replaces dequantize -> cat / view_copy / slice / select / upsample [-> more of them] -> quantize (equal
    parameters) by the same ops on the integer tensors."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        moved: set[torch.fx.Node] = set()  # the later ops of a chain, already on integers when lower_each reaches them
        return lower_each(graph, _OPS, lambda node: None if node in moved else self._lower(graph, node, moved))

    @staticmethod
    def _lower(graph: torch.fx.Graph, node: torch.fx.Node, moved: set) -> str | None:
        first = node.args[0]
        operands = list(first) if isinstance(first, (list, tuple)) else [first]
        if all(o.meta["val"].dtype in (torch.int8, torch.int16) for o in operands):
            return _ON_INTEGERS  # already (a rewrite's view of its integer result)
        # A chain of moves with one quantize at its end (a concat viewed, a slice of a slice) moves as a whole.
        chain = [node]
        while len(chain[-1].users) == 1:
            user = next(iter(chain[-1].users))
            if user.op != "call_function" or op_name(user.target) not in _OPS:
                break
            chain.append(user)
        problem = pattern_problem(chain[-1], operands, (torch.int8, torch.int16))
        if problem is not None:
            return problem
        out = qparams_of(next(iter(chain[-1].users)))
        if any(qparams_of(operand) != out for operand in operands):
            return "an input is quantized unlike its output (a requantizing concat or view has no cortex_m kernel)"
        integers = [operand.args[0] for operand in operands]
        values = integers if isinstance(first, (list, tuple)) else integers[0]
        dtype = integers[0].meta["val"].dtype
        with graph.inserting_before(node):
            for step in chain[:-1]:
                values = graph.call_function(step.target, (values, *step.args[1:]), dict(step.kwargs))
                val = step.meta["val"]
                with val.fake_mode:
                    values.meta["val"] = torch.empty(val.shape, dtype=dtype)
                values.meta[REASON] = _ON_INTEGERS
        last = chain[-1]
        replacement = replace_pattern(graph, last, last.target, [values, *last.args[1:]])
        replacement.meta[REASON] = _ON_INTEGERS
        for step in reversed(chain[:-1]):
            graph.erase_node(step)
        moved.update(chain)
        return None
