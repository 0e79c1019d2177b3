"""QuantizedScalingsAsCortexM: dequantize -> mul by a positive number -> quantize (int8 per tensor, or symmetric int16:
a16w8) as cortex_m.quantized_clamp over the output's whole range: one RESCALE by number * input_scale / output_scale,
rounding once (TOSA RESCALE). The queries' 1/sqrt(d) of a split attention (SplitAttention) and any x * c the quantizer
leaves with a Python number (QuantizedMulAsCmsisNn takes products of two quantized tensors)."""

from __future__ import annotations

import numbers

import torch
from executorch.backends.transforms.utils import delete_constant_placeholder
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_clamp import LARGEST_SHIFT
from etarm.cortex_m.passes.matching import REASON, constant_names, pattern_problem, replace_pattern
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

_MULS = ("aten.mul.Tensor", "aten.mul.Scalar")


def _number(value, read) -> float | None:
    """``value`` as a number: a Python one, or a one-element constant tensor; None otherwise."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, torch.fx.Node) and value.op == "placeholder":
        tensor = read(value)
        if tensor is not None and tensor.numel() == 1 and tensor.is_floating_point():
            return float(tensor.item())
    return None


class QuantizedScalingsAsCortexM(ProgramPass):
    """Replaces dequantize -> mul by a positive number -> quantize by cortex_m.quantized_clamp (a rescale)."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        read = constant_reader(program) if program is not None else (lambda node: None)
        changed = False
        for mul in [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) in _MULS]:
            reason = self._lower(graph, mul, read)
            if reason is None:
                changed = True
            elif reason:
                mul.meta[REASON] = reason
        if changed:
            graph.eliminate_dead_code()
            if program is not None:
                names = constant_names(program)
                for node in [n for n in graph.nodes if n.op == "placeholder" and not n.users and n.name in names]:
                    delete_constant_placeholder(program, node)
        return changed

    @staticmethod
    def _lower(graph: torch.fx.Graph, mul: torch.fx.Node, read) -> str | None:
        """None once replaced; else why not, or "" for a product of two tensors (QuantizedMulAsCmsisNn's reason stays)."""
        x, other = mul.args[:2]
        number = _number(other, read)
        if number is None or not is_dequantize(x):
            x, number = other, _number(x, read)
        if number is None or not is_dequantize(x):
            return ""
        problem = pattern_problem(mul, [x], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        if not number > 0:
            return f"a product with {number}: a rescale keeps the sign (only positive numbers)"
        params, out = qparams_of(x), qparams_of(next(iter(mul.users)))
        try:
            multiplier, shift = multiplier_and_shift(number * float(params.scale) / float(out.scale), LARGEST_SHIFT)
        except EtarmError as error:
            return str(error)
        args = [x.args[0], int(params.zero_point), multiplier, shift, int(out.zero_point), out.qmin, out.qmax]
        replace_pattern(graph, mul, exir_ops.edge.cortex_m.quantized_clamp.default, args)
        return None
