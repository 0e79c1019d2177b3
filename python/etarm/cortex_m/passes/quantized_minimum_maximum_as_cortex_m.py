"""QuantizedMinimumMaximumAsCortexM: dequantize -> minimum / maximum -> quantize (int8, per tensor) as
cortex_m.quantized_minimum / quantized_maximum (kernels written in the project: the CMSIS-NN snapshot
has no arm_minimum_s8 / arm_maximum_s8)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_extremum import EXTREMUM_LARGEST_SHIFT
from etarm.cortex_m.passes.matching import lower_each, pattern_problem, replace_pattern
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

_KERNELS = {
    "aten.minimum.default": exir_ops.edge.cortex_m.quantized_minimum.default,
    "aten.maximum.default": exir_ops.edge.cortex_m.quantized_maximum.default,
}


class QuantizedMinimumMaximumAsCortexM(ProgramPass):
    """Replaces dequantize -> minimum/maximum -> quantize (int8 or int16, per-tensor) by
    cortex_m.quantized_minimum/maximum."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, tuple(_KERNELS), lambda node: self._lower(graph, node))

    @staticmethod
    def _lower(graph: torch.fx.Graph, node: torch.fx.Node) -> str | None:
        problem = pattern_problem(node, node.args[:2], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        dq_a, dq_b = node.args[:2]
        out = qparams_of(next(iter(node.users)))
        args = []
        try:
            # As the TOSA lowering: each operand rescaled into the output's steps (a scale of exactly 1,
            # multiplier 2**30 and shift 1, when it shares the output's parameters).
            for dq in (dq_a, dq_b):
                params = qparams_of(dq)
                scale = float(params.scale) / float(out.scale)
                args += [dq.args[0], int(params.zero_point), *multiplier_and_shift(scale, EXTREMUM_LARGEST_SHIFT)]
        except EtarmError as error:
            return str(error)
        replace_pattern(graph, node, _KERNELS[op_name(node.target)], [*args, int(out.zero_point)])
        return None
