"""QuantizedLinearAsCmsisNn: a quantized nn.Linear (int8 or int16 activations, int8 weights, int32 bias) as
cortex_m.quantized_linear.

In the edge program an nn.Linear on a 2-D input is ``addmm(dq(bias), dq(x), permute_copy(dq(weight), [1, 0]))``
(``mm`` without a bias; on a rank-3+ input between two ``view_copy``), its weight and bias constants dequantized per tensor or per output channel. When that
result is quantized to its input's type (int8, or symmetric int16: a16w8) directly, or through relu / relu6 / hardtanh / clamp with no quantize between (the
quantizer fuses them), the whole becomes one cortex_m.quantized_linear: the int8 weight and int32 bias constants
as they are (an int16 input's bias widened to the int64 its kernel reads), the weights' row sums (CMSIS-NN's MVE
s8 fully-connected wants them, without the bias; empty for int16), one multiplier and shift per tensor or per
channel, and the activation as the output clamp. Everything is computed here, once. Weights quantized to int4's
range (a8w4: the dequantize's quant_min/quant_max within [-8, 7]) on an int8 input give cortex_m.quantized_linear_s4
instead: the weight packed two per byte (int4.py), its [N, K] shape an argument, no row sums.
"""

from __future__ import annotations

import math

import torch
from executorch.backends.transforms.utils import create_constant_placeholder
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.cortex_m import int4
from etarm.cortex_m.passes.matching import (
    NotLowered,
    activation_dtype,
    activation_range,
    constant,
    lower_each_reading_constants,
    quantized_result,
)
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

_ADDMM = "aten.addmm.default"
_MM = "aten.mm.default"
_PERMUTE = "aten.permute_copy.default"
_VIEW = "aten.view_copy.default"


class QuantizedLinearAsCmsisNn(ProgramPass):
    """Replaces dequantize -> addmm/mm [-> relu/hardtanh/clamp] -> quantize (int8 or int16) by
    cortex_m.quantized_linear (int8: arm_fully_connected_s8 for per-tensor weights, arm_convolve_1x1_s8_fast for
    per-channel ones; int16: arm_fully_connected_s16)."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        matmuls = [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) in (_ADDMM, _MM)]
        return lower_each_reading_constants(program, graph, matmuls, lambda n: self._replace(program, graph, n))

    @staticmethod
    def _replace(program: ExportedProgram, graph: torch.fx.Graph, matmul: torch.fx.Node) -> None:
        read = constant_reader(program)
        name = op_name(matmul.target)
        if name == _ADDMM:
            if matmul.kwargs.get("beta", 1) != 1 or matmul.kwargs.get("alpha", 1) != 1:
                raise NotLowered("addmm with alpha or beta != 1 has no cortex_m kernel")
            dq_bias, dq_x, weight_t = matmul.args[:3]
        else:
            dq_bias, (dq_x, weight_t) = None, matmul.args[:2]
        # A linear on a rank-3+ input: its leading dims flattened before the matmul and restored after it.
        # The kernel takes any rank, so both views go.
        flatten = None
        if isinstance(dq_x, torch.fx.Node) and op_name(dq_x.target) == _VIEW and is_dequantize(dq_x.args[0]):
            shape = list(dq_x.args[0].meta["val"].shape)
            if len(dq_x.args[1]) != 2 or dq_x.args[1][-1] != shape[-1]:
                raise NotLowered("its input is reshaped beyond flattening the leading dims")
            flatten, dq_x = shape, dq_x.args[0]
        dtype = activation_dtype(qparams_of(dq_x)) if is_dequantize(dq_x) else None
        if dtype is None:
            raise NotLowered(
                "its input is not a dequantized int8 tensor with per-tensor parameters (nor a symmetric int16 one)"
            )
        if not (
            isinstance(weight_t, torch.fx.Node)
            and op_name(weight_t.target) == _PERMUTE
            and list(weight_t.args[1]) == [1, 0]
            and is_dequantize(weight_t.args[0])
        ):
            raise NotLowered("its weight is not a transposed dequantized constant (an nn.Linear weight)")
        dq_weight = weight_t.args[0]
        w = qparams_of(dq_weight, read)
        weight = constant(dq_weight.args[0], read, "weight")
        if weight.dtype != torch.int8 or weight.dim() != 2 or (w.per_channel and w.axis != 0):
            raise NotLowered("its weight is not int8 [out, in], per tensor or per output channel")
        if any(int(z) != 0 for z in w.zero_points):
            raise NotLowered("its weight is not symmetric (zero point 0)")

        # The result quantized directly, or through one fused activation.
        result = matmul
        if flatten is not None:
            unflatten = list(matmul.users)
            want = [*flatten[:-1], weight.shape[0]]
            if len(unflatten) != 1 or op_name(unflatten[0].target) != _VIEW or list(unflatten[0].args[1]) != want:
                raise NotLowered("its flattened result is not reshaped back to the input's leading dims")
            result = unflatten[0]
        activation, quantize = quantized_result(result, dtype)
        out = qparams_of(quantize)
        act_min, act_max = activation_range(activation, out)

        x = qparams_of(dq_x)
        out_features = weight.shape[0]
        weight_scales = [float(s) for s in w.scales]
        accumulator_scales = [x.scale * s for s in weight_scales]  # one int32 step of the matmul's result
        bias = None
        if dq_bias is not None:
            if not is_dequantize(dq_bias):
                raise NotLowered("its bias is not a dequantized int32 constant")
            b = qparams_of(dq_bias, read)
            bias = constant(dq_bias.args[0], read, "bias")
            if bias.dtype != torch.int32 or bias.shape != (out_features,):
                raise NotLowered("its bias is not int32 [out]")
            bias_scales = [float(s) for s in b.scales]
            if len(bias_scales) == 1:
                bias_scales *= len(accumulator_scales)
            if len(bias_scales) != len(accumulator_scales) and len(accumulator_scales) == 1:
                accumulator_scales *= len(bias_scales)
            if any(int(z) != 0 for z in b.zero_points) or not all(
                math.isclose(bs, acc, rel_tol=1e-5) for bs, acc in zip(bias_scales, accumulator_scales)
            ):
                raise NotLowered("its bias is not quantized at input scale * weight scale with zero point 0")
        try:
            params = [multiplier_and_shift(s / out.scale) for s in accumulator_scales]
        except EtarmError as error:
            raise NotLowered(str(error)) from error

        int16 = dtype == torch.int16
        s4 = not int16 and int4.holds_int4(weight, w.qmin, w.qmax)
        values = {
            "multipliers": torch.tensor([m for m, _ in params], dtype=torch.int32),
            "shifts": torch.tensor([s for _, s in params], dtype=torch.int32),
        }
        if s4:
            values["weight_s4"] = int4.pack(weight.contiguous())
        else:
            # The s8 MVE fully-connected's row sums (empty for int16, whose kernel reads none).
            values["kernel_sum"] = (
                torch.zeros(0, dtype=torch.int32) if int16 else weight.to(torch.int32).sum(dim=1, dtype=torch.int32)
            ).contiguous()
        if bias is not None and int16:
            values["bias_int64"] = bias.to(torch.int64)  # arm_fully_connected_s16 reads an int64 bias
        first_input = next(n for n in graph.nodes if n.op == "placeholder")
        with graph.inserting_before(first_input):
            constants = {
                what: create_constant_placeholder(program, graph, f"{matmul.name}_{what}", InputKind.PARAMETER, value)
                for what, value in values.items()
            }
        bias_arg = None if bias is None else constants.get("bias_int64", dq_bias.args[0])
        if s4:
            target = exir_ops.edge.cortex_m.quantized_linear_s4.default
            args = (
                dq_x.args[0], int(x.zero_point), constants["weight_s4"], bias_arg, constants["multipliers"],
                constants["shifts"], int(out.zero_point), act_min, act_max, [int(d) for d in weight.shape],
            )  # fmt: skip
        else:
            target = exir_ops.edge.cortex_m.quantized_linear.default
            args = (
                dq_x.args[0], int(x.zero_point), dq_weight.args[0], bias_arg,
                constants["kernel_sum"], constants["multipliers"], constants["shifts"], int(out.zero_point), act_min,
                act_max,
            )  # fmt: skip
        with graph.inserting_before(quantize):
            node = graph.call_function(target, args)
        node.meta = dict(quantize.meta)  # its value: int8 / int16 at the linear's output shape
        quantize.replace_all_uses_with(node)
        graph.erase_node(quantize)
        for done in dict.fromkeys((activation, result, matmul)):
            if done is not None and not done.users:
                graph.erase_node(done)
