"""QuantizedPermutesAsCortexM: a permute_copy of int8 (or int16: a16w8) data as cortex_m.transpose (the project's
kernel: the CMSIS-NN snapshot has no arm_transpose_s8).

Two forms move integer values unchanged: dequantize -> permute_copy -> quantize with the same parameters on both
sides, and a permute_copy whose input already is int8 / int16 (between cortex_m ops, or a layout permute nhwc.py put
around an NHWC op that CancelLayoutPermutes left: it runs before this pass, which matches aten permutes only).
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.transpose import TRANSPOSE_LARGEST_RANK
from etarm.cortex_m.passes.matching import REASON, lower_each, pattern_problem, replace_pattern
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

_TRANSPOSE = exir_ops.edge.cortex_m.transpose.default


class QuantizedPermutesAsCortexM(ProgramPass):
    """Replaces each permute_copy that moves int8 / int16 values unchanged by cortex_m.transpose."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, ("aten.permute_copy.default",), lambda node: self._lower(graph, node))

    @staticmethod
    def _lower(graph: torch.fx.Graph, node: torch.fx.Node) -> str | None:
        source, dims = node.args[:2]
        rank = source.meta["val"].dim()
        if rank > TRANSPOSE_LARGEST_RANK:
            return f"rank {rank} is above the kernel's {TRANSPOSE_LARGEST_RANK}"
        perm = [d % rank for d in dims] if rank else []
        if source.meta["val"].dtype in (torch.int8, torch.int16):
            with graph.inserting_before(node):
                replacement = graph.call_function(_TRANSPOSE, (source, perm))
            replacement.meta = {k: v for k, v in node.meta.items() if k != REASON}
            node.replace_all_uses_with(replacement)
            graph.erase_node(node)
            return None
        if not is_dequantize(source):
            return "its input is neither int8 data nor a dequantized int8 tensor"
        problem = pattern_problem(node, [source], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        if qparams_of(source) != qparams_of(next(iter(node.users))):
            return "its quantize's parameters differ from its dequantize's (a requantizing permute)"
        replace_pattern(graph, node, _TRANSPOSE, [source.args[0], perm])
        return None
