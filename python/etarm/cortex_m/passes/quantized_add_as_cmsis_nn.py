"""QuantizedAddAsCmsisNn: dequantize -> add / sub -> quantize (int8, or symmetric int16; per tensor) as
cortex_m.quantized_add (CMSIS-NN) / cortex_m.quantized_sub (the project's kernel, the same arithmetic)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_add import ADD_LEFT_SHIFT
from etarm.cortex_m.passes.matching import lower_each, pattern_problem, replace_pattern
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import QuantParams, qparams_of

_TARGETS = {
    "aten.add.Tensor": exir_ops.edge.cortex_m.quantized_add.default,
    "aten.sub.Tensor": exir_ops.edge.cortex_m.quantized_sub.default,
}


def _requantize_args(params: QuantParams, scale: float) -> list[int]:
    return [int(params.zero_point), *multiplier_and_shift(scale)]


class QuantizedAddAsCmsisNn(ProgramPass):
    """Replaces dequantize -> add -> quantize (int8 or int16, per-tensor) by cortex_m.quantized_add
    (arm_elementwise_add_s8 / _s16), and a sub by cortex_m.quantized_sub."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, _TARGETS, lambda add: self._lower(graph, add))

    @staticmethod
    def _lower(graph: torch.fx.Graph, add: torch.fx.Node) -> str | None:
        if add.kwargs.get("alpha", 1) != 1:
            return "an add or sub with alpha != 1 has no cortex_m kernel yet"
        problem = pattern_problem(add, add.args[:2], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        dq_a, dq_b = add.args[:2]
        a, b, out = qparams_of(dq_a), qparams_of(dq_b), qparams_of(next(iter(add.users)))
        # As the TOSA lowering of a quantized add: both operands on a common int32 scale of
        # 2 * max(scale) / 2**20 (int16: 2**15), their sum rescaled into the output.
        twice_max = 2 * max(a.scale, b.scale)
        unit = twice_max / (1 << ADD_LEFT_SHIFT[a.dtype])
        try:
            args = [
                dq_a.args[0], *_requantize_args(a, a.scale / twice_max),
                dq_b.args[0], *_requantize_args(b, b.scale / twice_max),
                *_requantize_args(out, unit / out.scale),
            ]  # fmt: skip
        except EtarmError as error:
            return str(error)
        replace_pattern(graph, add, _TARGETS[op_name(add.target)], args)
        return None
