"""QuantizedSoftmaxAsCmsisNn: dequantize -> softmax over the last dim -> quantize (int8, per tensor) as one
cortex_m.quantized_softmax (arm_softmax_s8) between the input's and the output's int8 tensors.

The input's parameters become TFLite's softmax parameters, computed here once: beta * input_scale * 2**26
(differences in Q5.26) as a Q0.31 multiplier and a left shift, and diff_min, the most negative difference
whose exp the kernel's Q5.26 range still holds. The output must be at arm_softmax_s8's fixed 1/256 steps from
-128, which is what etarm's quantizer gives a softmax (annotate_fixed_range.py: [0, 1] over int8, affine).
"""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_softmax import DIFF_INTEGER_BITS, LONGEST_ROW, OUTPUT_SCALE, OUTPUT_ZERO_POINT
from etarm.cortex_m.passes.matching import int8_pattern_problem, lower_each, replace_pattern
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


class QuantizedSoftmaxAsCmsisNn(ProgramPass):
    """Replaces dequantize -> softmax (last dim) -> quantize (int8, per-tensor) by cortex_m.quantized_softmax."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        return lower_each(graph, _SOFTMAXES, lambda node: self._lower(graph, node))

    @staticmethod
    def _lower(graph: torch.fx.Graph, softmax: torch.fx.Node) -> str | None:
        dequantize, dim = softmax.args[:2]
        problem = int8_pattern_problem(softmax, [dequantize])
        if problem is not None:
            return problem
        shape = softmax.meta["val"].shape
        if len(shape) == 0 or dim % len(shape) != len(shape) - 1:
            return f"softmax over dim {dim} of a rank-{len(shape)} tensor: arm_softmax_s8 runs over the last dim"
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
