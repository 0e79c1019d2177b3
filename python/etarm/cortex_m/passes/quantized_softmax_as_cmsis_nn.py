"""QuantizedSoftmaxAsCmsisNn: dequantize -> softmax over the last dim -> quantize (int8, per tensor) as one
cortex_m.quantized_softmax (arm_softmax_s8) between the input's and the output's int8 tensors; the same pattern on
int16 (a16w8) as one cortex_m.quantized_softmax_int16 (the project's kernel: the snapshot's arm_softmax_s16 wraps).

The input's parameters become TFLite's softmax parameters, computed here once: beta * input_scale * 2**26
(differences in Q5.26) as a Q0.31 multiplier and a left shift, and diff_min, the most negative difference
whose exp the kernel's Q5.26 range still holds. The output must be at arm_softmax_s8's fixed 1/256 steps from
-128, which is what etarm's quantizer gives a softmax (annotate_fixed_range.py: [0, 1] over int8, affine). For
int16 the input scale times log2(e) in Q16 becomes a multiplier/shift, the exp2 table a constant, and the output
must be the quantizer's symmetric [0, 1] over int16 (steps of 1/32767).
"""

from __future__ import annotations

import math

import torch
from executorch.backends.transforms.utils import create_constant_placeholder
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.cortex_m.ops import quantized_softmax_int16 as int16_softmax

from etarm.cortex_m.ops.quantized_softmax import DIFF_INTEGER_BITS, LONGEST_ROW, OUTPUT_SCALE, OUTPUT_ZERO_POINT
from etarm.cortex_m.passes.matching import lower_each, pattern_problem, replace_pattern
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

_SOFTMAXES = ("aten._softmax.default",)


def softmax_parameters(input_scale: float) -> tuple[int, int, int] | str:
    """(input_multiplier, input_left_shift, diff_min) for arm_softmax_s8, or why the scale cannot be run."""
    real = input_scale * 2.0 ** (31 - DIFF_INTEGER_BITS)
    mantissa, left_shift = math.frexp(real)  # real = mantissa * 2**left_shift, mantissa in [0.5, 1)
    multiplier = math.floor(mantissa * 2**31 + 0.5)
    if multiplier == 2**31:
        multiplier //= 2
        left_shift += 1
    if not 0 <= left_shift <= 30:
        return f"its input scale {input_scale} is outside arm_softmax_s8's range (2**-27 to 2**4)"
    radius = math.floor((2**DIFF_INTEGER_BITS - 1) * 2.0 ** (31 - DIFF_INTEGER_BITS) / 2.0**left_shift)
    return multiplier, left_shift, -radius


def int16_softmax_parameters(input_scale: float) -> tuple[int, int] | str:
    """(multiplier, shift) of input_scale * log2(e) in Q16 for cortex_m.quantized_softmax_int16, or why not."""
    try:
        # Right shifts of at least 1 (shift <= 30): the kernel rounds the int64 product once.
        return multiplier_and_shift(input_scale * math.log2(math.e) * 2**int16_softmax.FRACTION_BITS, largest_shift=30)
    except EtarmError:
        return f"its input scale {input_scale} is outside the int16 softmax's range (below about 11000)"


class QuantizedSoftmaxAsCmsisNn(ProgramPass):
    """Replaces dequantize -> softmax (last dim) -> quantize (int8 or int16, per-tensor) by
    cortex_m.quantized_softmax (int8) or cortex_m.quantized_softmax_int16."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, _SOFTMAXES, lambda node: self._lower(program, graph, node))

    @staticmethod
    def _lower(program: ExportedProgram | None, graph: torch.fx.Graph, softmax: torch.fx.Node) -> str | None:
        dequantize, dim = softmax.args[:2]
        problem = pattern_problem(softmax, [dequantize], (torch.int8, torch.int16))
        if problem is not None:
            return problem
        shape = softmax.meta["val"].shape
        if len(shape) == 0 or dim % len(shape) != len(shape) - 1:
            return f"softmax over dim {dim} of a rank-{len(shape)} tensor: the kernels run over the last dim"
        if qparams_of(dequantize).dtype == torch.int16:
            return QuantizedSoftmaxAsCmsisNn._lower_int16(program, graph, softmax)
        if shape[-1] > LONGEST_ROW:
            return f"rows of {shape[-1]} elements: arm_softmax_s8 sums at most {LONGEST_ROW} exps in int32"
        out = qparams_of(next(iter(softmax.users)))
        if not math.isclose(float(out.scale), OUTPUT_SCALE, rel_tol=1e-6) or int(out.zero_point) != OUTPUT_ZERO_POINT:
            return (
                f"its output is quantized with scale {float(out.scale):.6g}, zero point {int(out.zero_point)}: "
                "arm_softmax_s8 writes steps of 1/256 from -128"
            )
        parameters = softmax_parameters(float(qparams_of(dequantize).scale))
        if isinstance(parameters, str):
            return parameters
        args = [dequantize.args[0], *parameters]
        replace_pattern(graph, softmax, exir_ops.edge.cortex_m.quantized_softmax.default, args)
        return None

    @staticmethod
    def _lower_int16(program: ExportedProgram | None, graph: torch.fx.Graph, softmax: torch.fx.Node) -> str | None:
        dequantize = softmax.args[0]
        out = qparams_of(next(iter(softmax.users)))
        if not math.isclose(float(out.scale), int16_softmax.OUTPUT_SCALE, rel_tol=1e-6):
            return (
                f"its output is quantized with scale {float(out.scale):.6g}: the int16 softmax writes steps of "
                "1/32767 (the quantizer's [0, 1])"
            )
        if program is None:
            return "its exp2 table cannot be added without the program"
        parameters = int16_softmax_parameters(float(qparams_of(dequantize).scale))
        if isinstance(parameters, str):
            return parameters
        with graph.inserting_before(next(n for n in graph.nodes if n.op == "placeholder")):
            table = create_constant_placeholder(
                program, graph, f"{softmax.name}_exp2_table", InputKind.PARAMETER, int16_softmax.exp2_table()
            )
        args = [dequantize.args[0], table, *parameters]
        replace_pattern(graph, softmax, exir_ops.edge.cortex_m.quantized_softmax_int16.default, args)
        return None
