"""QuantizedClampAsCortexM: a relu / relu6 / hardtanh / clamp left alone between its dequantize and quantize (int8 per
tensor, or symmetric int16: a16w8) as cortex_m.quantized_clamp, requantizing into the output's parameters.

The quantizer fuses an activation into the conv / linear / pool before it, and those rewrites take it as their
output clamp; one after an op it does not fuse with (a mean, an add, a concat, a view) keeps its own observer, so a
quantize sits between the op and it. This pass, after every fusing rewrite, takes what is left."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_clamp import LARGEST_SHIFT
from etarm.cortex_m.passes.matching import (
    NotLowered,
    activation_range,
    lower_each,
    pattern_problem,
    replace_pattern,
)
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import FUSED_ACTIVATIONS, qparams_of


class QuantizedClampAsCortexM(ProgramPass):
    """Replaces dequantize -> relu/relu6/hardtanh/clamp -> quantize (int8 or int16) by cortex_m.quantized_clamp."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, FUSED_ACTIVATIONS, lambda node: self._lower(graph, node))

    @staticmethod
    def _lower(graph: torch.fx.Graph, activation: torch.fx.Node) -> str | None:
        dequantize = activation.args[0]
        problem = pattern_problem(activation, [dequantize], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        x, out = qparams_of(dequantize), qparams_of(next(iter(activation.users)))
        try:
            multiplier, shift = multiplier_and_shift(x.scale / out.scale, LARGEST_SHIFT)
            act_min, act_max = activation_range(activation, out)
        except (EtarmError, NotLowered) as error:
            return str(error)
        if x == out and (act_min, act_max) == (out.qmin, out.qmax):
            # The output's own range already holds the bounds (a relu whose zero point is qmin): nothing to do.
            quantize = next(iter(activation.users))
            quantize.replace_all_uses_with(dequantize.args[0])
            graph.erase_node(quantize)
            graph.erase_node(activation)
            return None
        args = [dequantize.args[0], int(x.zero_point), multiplier, shift, int(out.zero_point), act_min, act_max]
        replace_pattern(graph, activation, exir_ops.edge.cortex_m.quantized_clamp.default, args)
        return None
