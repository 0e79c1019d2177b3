"""What the two convolution rewrites share (QuantizedConv2dAsCmsisNn, QuantizedDepthwiseConv2dAsCmsisNn).

In the edge program a quantized nn.Conv2d is ``convolution(dq(x), dq(weight), dq(bias), ...)``, its weight and bias
constants dequantized per tensor or per output channel. When its result is quantized to its input's type (int8, or
symmetric int16: a16w8) directly, or through relu / relu6 / hardtanh / clamp with no quantize between, the whole
becomes one NHWC cortex_m op between two permute_copy nodes (nhwc.py): the weights permuted into CMSIS-NN's layout
once, here, a zero bias when there is none (int64 for int16 inputs, as the s16 kernels read it), one multiplier and
shift per output channel, the activation as the output clamp. Weights quantized to int4's range (a8w4: the
dequantize's quant_min/quant_max within [-8, 7]) on an int8 input become the kind's s4 op where CMSIS-NN has one:
the permuted weights packed two per byte (int4.py), their shape an argument.
"""

from __future__ import annotations

import math

import torch
from executorch.backends.transforms.utils import create_constant_placeholder
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
from etarm.cortex_m.passes.nhwc import replace_by_nhwc_op
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

CONVOLUTION = "aten.convolution.default"


def groups_and_channels(convolution: torch.fx.Node) -> tuple[int, int]:
    """(groups, input channels) of an aten.convolution node."""
    return int(convolution.args[8]), int(convolution.args[0].meta["val"].shape[1])


def convolution_constants(
    program: ExportedProgram,
    graph: torch.fx.Graph,
    convolution: torch.fx.Node,
    weight: torch.Tensor,
    bias: torch.Tensor,
    params: list[tuple[int, int]],
) -> tuple[torch.fx.Node, ...]:
    """The constants a convolution's cortex_m op reads (its weight in the kernel's layout, bias, per-channel
    multipliers and shifts), as new parameters named after ``convolution``."""
    first_input = next(n for n in graph.nodes if n.op == "placeholder")
    with graph.inserting_before(first_input):
        return tuple(
            create_constant_placeholder(program, graph, f"{convolution.name}_{what}", InputKind.PARAMETER, value)
            for what, value in (
                ("weight", weight),
                ("bias", bias),
                ("multipliers", torch.tensor([m for m, _ in params], dtype=torch.int32)),
                ("shifts", torch.tensor([s for _, s in params], dtype=torch.int32)),
            )
        )


class QuantizedConvolutionAsCmsisNn(ProgramPass):
    """The rewrite of one kind of quantized 2-D convolution into an NHWC cortex_m op (a subclass per kind)."""

    target = None  # the exir op the subclass emits
    target_s4 = None  # the one it emits for int4-range weights on int8 activations (None: none, target takes them)
    # The activation types its kernel takes: int8, and int16 (a16w8) where CMSIS-NN has the s16 kernel.
    activation_types: tuple[torch.dtype, ...] = (torch.int8,)

    def handles(self, groups: int, in_channels: int) -> bool:
        """Whether this pass is the one that rewrites (or explains) a convolution with these groups."""
        raise NotImplementedError

    def cmsis_nn_weight(self, weight: torch.Tensor) -> torch.Tensor:
        """torch's OIHW int8 weights in the layout the kernel takes."""
        raise NotImplementedError

    def takes_int4(self, batches: int, in_channels: int, out_channels: int, dilation) -> bool:
        """Whether target_s4's kernel computes this convolution exactly (else int4-range weights take target's)."""
        return True

    def extra_arguments(self, groups: int, in_channels: int, out_channels: int) -> tuple:
        """The arguments after dilation and before the output zero point."""
        return ()

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        convolutions = [
            n
            for n in graph.nodes
            if n.op == "call_function"
            and op_name(n.target) == CONVOLUTION
            and not n.args[6]  # transposed ones are QuantizedTransposeConv2dAsCmsisNn's
            and self.handles(*groups_and_channels(n))
        ]
        return lower_each_reading_constants(program, graph, convolutions, lambda n: self._replace(program, graph, n))

    def _replace(self, program: ExportedProgram, graph: torch.fx.Graph, convolution: torch.fx.Node) -> None:
        read = constant_reader(program)
        dq_x, dq_weight, dq_bias, stride, padding, dilation, _, _, groups = convolution.args
        if len(convolution.args[0].meta["val"].shape) != 4:
            raise NotLowered("only 2-D convolutions (4-D NCHW inputs) have a cortex_m kernel")
        dtype = activation_dtype(qparams_of(dq_x)) if is_dequantize(dq_x) else None
        if dtype not in self.activation_types:
            also = " (nor a symmetric int16 one)" if torch.int16 in self.activation_types else ""
            raise NotLowered(f"its input is not a dequantized int8 tensor with per-tensor parameters{also}")
        if not is_dequantize(dq_weight):
            raise NotLowered("its weight is not a dequantized int8 constant")
        w = qparams_of(dq_weight, read)
        weight = constant(dq_weight.args[0], read, "weight")
        if weight.dtype != torch.int8 or (w.per_channel and w.axis != 0):
            raise NotLowered("its weight is not int8, per tensor or per output channel")
        if any(int(z) != 0 for z in w.zero_points):
            raise NotLowered("its weight is not symmetric (zero point 0)")

        activation, quantize = quantized_result(convolution, dtype)
        out = qparams_of(quantize)
        act_min, act_max = activation_range(activation, out)

        x = qparams_of(dq_x)
        out_channels = weight.shape[0]
        weight_scales = [float(s) for s in w.scales]
        if len(weight_scales) == 1:
            weight_scales *= out_channels
        accumulator_scales = [x.scale * s for s in weight_scales]  # one int32 step of each output channel
        bias = self._bias(dq_bias, read, accumulator_scales)
        if dtype == torch.int16:
            bias = bias.to(torch.int64)
        try:
            params = [multiplier_and_shift(s / out.scale) for s in accumulator_scales]
        except EtarmError as error:
            raise NotLowered(str(error)) from error

        in_channels = int(convolution.args[0].meta["val"].shape[1])
        layout = self.cmsis_nn_weight(weight).contiguous()
        target, packed_shape = self.target, ()
        batches = int(convolution.args[0].meta["val"].shape[0])
        if (
            self.target_s4 is not None
            and dtype == torch.int8
            and int4.holds_int4(weight, w.qmin, w.qmax)
            and self.takes_int4(batches, in_channels, out_channels, dilation)
        ):
            target, packed_shape = self.target_s4, ([int(d) for d in layout.shape],)
            layout = int4.pack(layout)
        weight_node, bias_node, multipliers, shifts = convolution_constants(
            program, graph, convolution, layout, bias, params
        )
        args = (
            int(x.zero_point), weight_node, bias_node, multipliers, shifts,
            [int(v) for v in stride], [int(v) for v in padding], [int(v) for v in dilation],
            *self.extra_arguments(int(groups), in_channels, out_channels),
            int(out.zero_point), act_min, act_max, *packed_shape,
        )  # fmt: skip
        replace_by_nhwc_op(graph, quantize, target, dq_x.args[0], args)
        for done in (activation, convolution):
            if done is not None and not done.users:
                graph.erase_node(done)

    @staticmethod
    def _bias(dq_bias, read, accumulator_scales: list[float]) -> torch.Tensor:
        """The int32 bias constant (zeros without one), checked to be at the accumulator's scale."""
        if dq_bias is None:
            return torch.zeros(len(accumulator_scales), dtype=torch.int32)
        if not is_dequantize(dq_bias):
            raise NotLowered("its bias is not a dequantized int32 constant")
        b = qparams_of(dq_bias, read)
        bias = constant(dq_bias.args[0], read, "bias")
        if bias.dtype != torch.int32 or bias.shape != (len(accumulator_scales),):
            raise NotLowered("its bias is not int32 [out channels]")
        bias_scales = [float(s) for s in b.scales]
        if len(bias_scales) == 1:
            bias_scales *= len(accumulator_scales)
        if any(int(z) != 0 for z in b.zero_points) or not all(
            math.isclose(bs, acc, rel_tol=1e-5) for bs, acc in zip(bias_scales, accumulator_scales)
        ):
            raise NotLowered("its bias is not quantized at input scale * weight scale with zero point 0")
        return bias.contiguous()
