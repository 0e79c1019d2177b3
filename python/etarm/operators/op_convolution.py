"""aten.convolution: 1-D/2-D/3-D convolution and 1-D/2-D transposed convolution.

CONV2D / CONV3D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D work channels-last with weights
OHWI / ODHWI / HWCM / OHWI; constant weights are rearranged at compile time. Groups
that are neither 1 nor depthwise run as one convolution per group (SLICE ... CONCAT).
1-D convolutions run as 2-D ones of height 1.

Quantized (INT): the same operators on int8 (or int16) inputs and int8 weights with
their zero points, accumulating into int32 (int48) with the bias folded in, then one
RESCALE, per output channel, into the output (quantized_products.py).
"""

from typing import Callable, NamedTuple

import torch
import tosa_serializer as ts

from etarm.lowering import quantized_products as qp
from etarm.lowering import shapes, spatial
from etarm.lowering import tensor_math as tm
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register
from etarm.tosa_ir.graph import TosaTensor


def _geometry(args: dict, spatial_rank: int) -> tuple:
    count = spatial_rank
    return (
        spatial.expand(args["stride"], count),
        spatial.expand(args["padding"], count),
        spatial.expand(args["dilation"], count),
        spatial.expand(args["output_padding"], count) if args["transposed"] else (0,) * count,
    )


def _as_2d(values: tuple, filler: int) -> tuple:
    """Per-axis parameters of a 1-D convolution as those of a height-1 2-D one."""
    return (filler, *values) if len(values) == 1 else values


def _bias(graph, args: dict, out_channels: int, dtype):
    if args["bias"] is None:
        return graph.const([0.0] * out_channels, dtype, shape=(out_channels,), stem="bias")
    return tm.cast(graph, graph.value(args["bias"]), dtype)


def _transposed_crop(pad: int, extent: int) -> tuple[int, int]:
    """TOSA output padding (> -extent) for torch's ``pad``, and what to crop beyond it."""
    out_pad = max(-pad, 1 - extent)
    return out_pad, out_pad + pad


class _Operands(NamedTuple):
    """What differs between float and quantized convolutions."""

    bias: TosaTensor  # [out channels], in the accumulator's type
    zero_points: tuple[TosaTensor, TosaTensor]  # input_zp, weight_zp
    acc_type: object  # ts.DType
    finish: Callable[[TosaTensor, int], TosaTensor]  # (accumulator, its first channel) -> result


def _quantized_reason(args: dict) -> str | None:
    """INT: int8/int16 input, symmetric int8 weights (per output channel at most), constant int32 bias."""
    input_reason = qp.operand_reason(args["input"], "input", (torch.int8, torch.int16))
    # Output channels: weight dim 0 ([out, in/groups, ...]); transposed, dim 1 ([in, out/groups, ...]).
    channel_axis = 1 if args["transposed"] else 0
    weight_reason = qp.operand_reason(
        args["weight"], "weight", (torch.int8,), symmetric=True, channel_axis=channel_axis
    )
    bias = args["bias"]
    bias_reason = bias is not None and qp.operand_reason(bias, "bias", (torch.int32,), constant=True, channel_axis=0)
    return input_reason or weight_reason or bias_reason or None


@register
class ConvolutionVisitor(NodeVisitor):
    targets = ("aten.convolution.default",)
    profiles = frozenset({"FP", "INT"})
    extension_floats = EXTENSION_FLOATS
    handles_qparams = True

    def check(self, node, spec):
        reason = spatial.float_input_reason(node)
        if reason:
            return reason
        args = spatial.call_arguments(node)
        weight = args["weight"].meta["val"]
        spatial_rank = weight.dim() - 2
        if spatial_rank not in (1, 2, 3):
            return f"{spatial_rank}-D convolution has no TOSA operator (1-D, 2-D and 3-D only)"
        if args["transposed"] and spatial_rank == 3:
            return "3-D transposed convolution (transposed=True) has no TOSA operator"
        if not all(isinstance(d, int) for d in weight.shape):
            return "dynamic weight shapes are not supported"
        stride, padding, dilation, output_padding = _geometry(args, spatial_rank)
        kernel = tuple(weight.shape[2:])
        reason = spatial.window_limits_reason(kernel, stride)
        if reason:
            return reason
        if any(d < 1 for d in dilation) or any(p < 0 for p in padding):
            return f"dilation {list(dilation)} / padding {list(padding)} must be positive / non-negative"
        if is_int_spec(spec):
            return _quantized_reason(args)
        return None

    def define(self, node, graph):
        args = spatial.call_arguments(node)
        x = graph.value(args["input"])
        weight = graph.value(args["weight"])
        spatial_rank = weight.rank - 2
        stride, padding, dilation, output_padding = _geometry(args, spatial_rank)
        groups = int(args["groups"])
        out = graph.out(node)
        out_spatial = _as_2d(spatial.spatial_shape(node.meta["val"], spatial_rank), 1)
        if spatial_rank == 1:
            weight = graph.reshape(weight, (weight.shape[0], weight.shape[1], 1, weight.shape[2]))
        stride, padding, dilation, output_padding = (
            _as_2d(stride, 1), _as_2d(padding, 0), _as_2d(dilation, 1), _as_2d(output_padding, 0)
        )
        nhwc = spatial.to_channels_last(graph, x, spatial_rank)
        out_channels = node.meta["val"].shape[-spatial_rank - 1]
        if is_quantized(node):
            acc = qp.accumulation(node, 0, 1, channel_repeats=groups if args["transposed"] else 1)
            operands = _Operands(
                qp.bias(graph, node, 2, acc, out_channels),
                acc.zero_points(graph, nhwc.dtype, weight.dtype),
                acc.dtype,
                # Each group's accumulator is rescaled on its own: TOSA cannot CONCAT int48.
                lambda tensor, first: qp.write_output(graph, node, tensor, acc, first_channel=first),
            )
        else:
            operands = _Operands(
                # fp8 convolutions give FP16 (with an FP16 bias): cast back to torch's fp8 result.
                _bias(graph, args, out_channels, spatial.product_dtype(nhwc.dtype)),
                (spatial.zero_point(graph, nhwc.dtype), spatial.zero_point(graph, weight.dtype)),
                spatial.accumulator_dtype(nhwc.dtype),
                lambda tensor, first: tm.cast(graph, tensor, out.dtype),
            )
        if args["transposed"]:
            result = self._transposed(
                graph, nhwc, weight, operands, groups, out_spatial, stride, padding, dilation, output_padding
            )
        else:
            result = self._forward(graph, nhwc, weight, operands, groups, out_spatial, stride, padding, dilation)
        spatial.write_channels_first(graph, result, out)

    # --- forward convolution ------------------------------------------------------------

    def _forward(self, graph, nhwc, weight, operands, groups, out_spatial, stride, padding, dilation):
        kernel = weight.shape[2:]
        fits = [
            spatial.fit_window(size, d * (k - 1) + 1, s, p, p, o)
            for size, k, s, p, d, o in zip(nhwc.shape[1:-1], kernel, stride, padding, dilation, out_spatial)
        ]
        nhwc = spatial.crop_trailing(graph, nhwc, [f.crop_after for f in fits])
        pads = [v for f in fits for v in (f.pad_before, f.pad_after)]
        in_channels = nhwc.shape[-1]
        out_channels = weight.shape[0]
        attrs = (pads, list(stride), list(dilation), False, operands.acc_type)
        if groups > 1 and groups == in_channels and nhwc.rank == 4:
            # Depthwise: torch [C*M, 1, KH, KW] (out channel c*M + m) -> TOSA HWCM.
            multiplier = out_channels // in_channels
            hwcm = graph.transpose(graph.reshape(weight, (in_channels, multiplier, *kernel)), (2, 3, 0, 1)
            )
            shape = (nhwc.shape[0], *out_spatial, out_channels)
            conv = self._conv_op(graph, ts.Op.DEPTHWISE_CONV2D, nhwc, hwcm, operands.bias, operands, shape, attrs)
            return operands.finish(conv, 0)
        op = ts.Op.CONV2D if nhwc.rank == 4 else ts.Op.CONV3D
        group_in, group_out = in_channels // groups, out_channels // groups
        results = []
        for g in range(groups):
            x_g = spatial.slice_axis(graph, nhwc, nhwc.rank - 1, g * group_in, group_in)
            w_g = spatial.slice_axis(graph, weight, 0, g * group_out, group_out)
            b_g = spatial.slice_axis(graph, operands.bias, 0, g * group_out, group_out)
            w_g = graph.transpose(w_g, spatial.channels_last_perm(w_g.rank))
            shape = (nhwc.shape[0], *out_spatial, group_out)
            conv = self._conv_op(graph, op, x_g, w_g, b_g, operands, shape, attrs)
            results.append(operands.finish(conv, g * group_out))
        return shapes.concat(graph, results, nhwc.rank - 1)

    @staticmethod
    def _conv_op(graph, op, x, weight, bias, operands, shape, attrs):
        # The result has the bias's type: the accumulator's for integers (int32 / int48).
        return graph.emit(op, [x, weight, bias, *operands.zero_points], shape, bias.dtype, *attrs)

    # --- transposed convolution -------------------------------------------------------------

    def _transposed(
        self, graph, nhwc, weight, operands, groups, out_spatial, stride, padding, dilation, output_padding
    ):
        # torch weight [Cin, Cout/groups, KH, KW]; dilation becomes zeros inside the kernel.
        for axis, d in zip((2, 3), dilation):
            weight = spatial.dilate(graph, weight, axis, d)
        kernel = weight.shape[2:]
        out_pad, crop_before = [], []
        for k, p, extra in zip(kernel, padding, output_padding):
            before, crop_b = _transposed_crop(p, k)
            after, _ = _transposed_crop(p - extra, k)
            out_pad += [before, after]
            crop_before.append(crop_b)
        in_channels = nhwc.shape[-1]
        group_in, group_out = in_channels // groups, weight.shape[1]
        attrs = (out_pad, list(stride), False, operands.acc_type)
        results = []
        for g in range(groups):
            x_g = spatial.slice_axis(graph, nhwc, 3, g * group_in, group_in)
            w_g = graph.transpose(spatial.slice_axis(graph, weight, 0, g * group_in, group_in), (1, 2, 3, 0))
            b_g = spatial.slice_axis(graph, operands.bias, 0, g * group_out, group_out)
            shape = [nhwc.shape[0]] + [
                (i - 1) * s + before + after + k
                for i, s, before, after, k in zip(nhwc.shape[1:3], stride, out_pad[0::2], out_pad[1::2], kernel)
            ] + [group_out]
            conv = self._conv_op(graph, ts.Op.TRANSPOSE_CONV2D, x_g, w_g, b_g, operands, shape, attrs)
            results.append(operands.finish(conv, g * group_out))
        result = shapes.concat(graph, results, 3)
        starts = [0, *crop_before, 0]
        return spatial.slice_box(graph, result, starts, [result.shape[0], *out_spatial, result.shape[3]])
