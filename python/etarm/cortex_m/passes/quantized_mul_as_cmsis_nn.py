"""QuantizedMulAsCmsisNn: dequantize -> mul -> quantize (int8, or symmetric int16; per tensor) as
cortex_m.quantized_mul."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import lower_each, pattern_problem, replace_pattern
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

_MULS = ("aten.mul.Tensor",)


class QuantizedMulAsCmsisNn(ProgramPass):
    """Replaces dequantize -> mul -> quantize (int8 or int16, per-tensor) by cortex_m.quantized_mul
    (arm_elementwise_mul_s8 / _s16)."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, _MULS, lambda mul: self._lower(graph, mul))

    @staticmethod
    def _lower(graph: torch.fx.Graph, mul: torch.fx.Node) -> str | None:
        problem = pattern_problem(mul, mul.args[:2], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        dq_a, dq_b = mul.args[:2]
        a, b, out = qparams_of(dq_a), qparams_of(dq_b), qparams_of(next(iter(mul.users)))
        # As the TOSA lowering of a quantized mul: the int32 product of the centred operands is in
        # steps of scale_a * scale_b, rescaled once into the output.
        try:
            multiplier, shift = multiplier_and_shift(float(a.scale) * float(b.scale) / float(out.scale))
        except EtarmError as error:
            return str(error)
        args = [
            dq_a.args[0],
            int(a.zero_point),
            dq_b.args[0],
            int(b.zero_point),
            int(out.zero_point),
            multiplier,
            shift,
        ]
        replace_pattern(graph, mul, exir_ops.edge.cortex_m.quantized_mul.default, args)
        return None
