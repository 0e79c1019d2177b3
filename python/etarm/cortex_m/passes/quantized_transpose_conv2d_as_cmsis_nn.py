"""QuantizedTransposeConv2dAsCmsisNn: a quantized nn.ConvTranspose2d (groups 1, dilation 1; int8 activations, or
symmetric int16 ones: a16w8) as cortex_m.quantized_transpose_conv2d, NHWC between two permutes (nhwc.py).

In the edge program it is ``convolution(dq(x), dq(weight), dq(bias), stride, padding, dilation, transposed=True,
output_padding, groups)`` with torch's [C_in, C_out, KH, KW] weights, per tensor or per output channel (axis 1). The
weights are stored permuted once into arm_transpose_conv_s8's [C_out, KH, KW, C_in]; bias, multipliers/shifts and
the fused activation as in quantized_convolution.py, whose bias check this pass shares; the other convolution
rewrites leave every transposed convolution to it.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import (
    NotLowered,
    activation_dtype,
    activation_range,
    constant,
    lower_each_reading_constants,
    quantized_result,
)
from etarm.cortex_m.passes.nhwc import replace_by_nhwc_op
from etarm.cortex_m.passes.quantized_convolution import (
    CONVOLUTION,
    QuantizedConvolutionAsCmsisNn,
    convolution_constants,
)
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

# torch's transposed weights keep the output channels in dim 1 ([C_in, C_out / groups, KH, KW]).
WEIGHT_CHANNEL_AXIS = 1


def is_transposed_convolution(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and op_name(node.target) == CONVOLUTION and bool(node.args[6])


class QuantizedTransposeConv2dAsCmsisNn(ProgramPass):
    """Replaces dequantize -> convolution (transposed, groups 1, dilation 1) [-> relu/hardtanh/clamp] -> quantize
    (int8 or int16) by permute -> cortex_m.quantized_transpose_conv2d (arm_transpose_conv_s8; int16: the project's
    kernel) -> permute."""

    target = exir_ops.edge.cortex_m.quantized_transpose_conv2d.default
    activation_types = (torch.int8, torch.int16)

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        convolutions = [n for n in graph.nodes if is_transposed_convolution(n)]
        return lower_each_reading_constants(program, graph, convolutions, lambda n: self._replace(program, graph, n))

    def _replace(self, program: ExportedProgram, graph: torch.fx.Graph, convolution: torch.fx.Node) -> None:
        read = constant_reader(program)
        dq_x, dq_weight, dq_bias, stride, padding, dilation, _, output_padding, groups = convolution.args
        if len(dq_x.meta["val"].shape) != 4:
            raise NotLowered("only 2-D transposed convolutions (4-D NCHW inputs) have a cortex_m kernel")
        if int(groups) != 1:
            raise NotLowered(
                "a grouped transposed convolution has no cortex_m kernel (arm_transpose_conv_s8: groups 1)"
            )
        if any(int(d) != 1 for d in dilation):
            raise NotLowered("a dilated transposed convolution has no cortex_m kernel (arm_transpose_conv_s8: none)")
        dtype = activation_dtype(qparams_of(dq_x)) if is_dequantize(dq_x) else None
        if dtype not in self.activation_types:
            raise NotLowered("its input is not a dequantized int8 tensor with per-tensor parameters (nor a symmetric "
                             "int16 one)")  # fmt: skip
        if not is_dequantize(dq_weight):
            raise NotLowered("its weight is not a dequantized int8 constant")
        w = qparams_of(dq_weight, read)
        weight = constant(dq_weight.args[0], read, "weight")
        if weight.dtype != torch.int8 or (w.per_channel and w.axis != WEIGHT_CHANNEL_AXIS):
            raise NotLowered("its weight is not int8, per tensor or per output channel")
        if any(int(z) != 0 for z in w.zero_points):
            raise NotLowered("its weight is not symmetric (zero point 0)")

        activation, quantize = quantized_result(convolution, dtype)
        out = qparams_of(quantize)
        act_min, act_max = activation_range(activation, out)

        x = qparams_of(dq_x)
        out_channels = weight.shape[WEIGHT_CHANNEL_AXIS]
        weight_scales = [float(s) for s in w.scales]
        if len(weight_scales) == 1:
            weight_scales *= out_channels
        accumulator_scales = [x.scale * s for s in weight_scales]  # one accumulator step of each output channel
        bias = QuantizedConvolutionAsCmsisNn._bias(dq_bias, read, accumulator_scales)
        if dtype == torch.int16:
            bias = bias.to(torch.int64)  # the s16 kernel's accumulator
        try:
            params = [multiplier_and_shift(s / out.scale) for s in accumulator_scales]
        except EtarmError as error:
            raise NotLowered(str(error)) from error

        cmsis_nn_weight = weight.permute(1, 2, 3, 0).contiguous()  # [C_in, C_out, KH, KW] -> [C_out, KH, KW, C_in]
        weight_node, bias_node, multipliers, shifts = convolution_constants(
            program, graph, convolution, cmsis_nn_weight, bias, params
        )
        args = (
            int(x.zero_point), weight_node, bias_node, multipliers, shifts,
            [int(v) for v in stride], [int(v) for v in padding], [int(v) for v in output_padding],
            int(out.zero_point), act_min, act_max,
        )  # fmt: skip
        replace_by_nhwc_op(graph, quantize, self.target, dq_x.args[0], args)
        for done in (activation, convolution):
            if done is not None and not done.users:
                graph.erase_node(done)
