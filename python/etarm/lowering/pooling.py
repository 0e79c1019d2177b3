"""Max and average pooling (1-D and 2-D, batched or not) on TOSA MAX_POOL2D / AVG_POOL2D.

Padding comes in two kinds. TOSA's own pool padding is never counted: MAX_POOL2D skips
it and AVG_POOL2D divides by the number of real elements. torch's average pool counts
its padding (count_include_pad=True, or always with divisor_override) but never the
extra windows ceil_mode adds past it; counted padding is an explicit zero PAD first.

Quantized (INT profile): max pooling moves integers unchanged (input and output share
their parameters). Average pooling sums each window in int32 with a DEPTHWISE_CONV2D of
unit weights (its padding adds real zeros, whichever kind it is) and divides in one
RESCALE by ``input scale / (divisor * output scale)``, per output position where torch's
divisors differ. AVG_POOL2D would round twice (its result keeps the input's scale), which
costs more than one output step when averaging narrows the output range; it serves only
unpadded pools whose output keeps the input's parameters (EthosUQuantizer on U85).
"""

from __future__ import annotations

import dataclasses
import math
from typing import ClassVar, Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import integer_sums, shapes, spatial
from etarm.lowering.dtype_rules import EXTENSION_FLOATS, is_fp8
from etarm.lowering.quantized import input_qparams, is_int_spec, is_quantized, output_qparams, rescale
from etarm.lowering.registry import NodeVisitor
from etarm.tosa_ir.graph import TosaGraph, TosaTensor


@dataclasses.dataclass(frozen=True)
class AxisPlan:
    crop_after: int  # trailing input elements no window reads
    counted: tuple[int, int]  # zero padding a PAD op adds (averaged over)
    uncounted: tuple[int, int]  # the pool's own padding (ignored)


def plan_axis(size: int, kernel: int, stride: int, padding: int, out_size: int, *, count_pad: bool, count_ceil: bool) -> AxisPlan:
    """Padding of one axis: torch's ``padding`` is counted if ``count_pad``; the extra that
    ceil_mode needs past it is counted if ``count_ceil``."""
    counted = padding if count_pad else 0
    own = 0 if count_pad else padding
    fit = spatial.fit_window(size + 2 * counted, kernel, stride, own, own, out_size)
    counted_after = counted - min(fit.crop_after, counted)
    crop = fit.crop_after - (counted - counted_after)
    uncounted_after = fit.pad_after
    if count_ceil and uncounted_after > own:
        counted_after += uncounted_after - own
        uncounted_after = own
    return AxisPlan(crop, (counted, counted_after), (fit.pad_before, uncounted_after))


def plan_reason(plans: Sequence[AxisPlan], kernel: Sequence[int]) -> str | None:
    for plan, k in zip(plans, kernel):
        if max(plan.uncounted) >= k:
            return f"pool padding {max(plan.uncounted)} (with ceil_mode) reaches kernel_size {k}: TOSA needs padding < kernel"
    return None


@dataclasses.dataclass(frozen=True)
class PoolWindow:
    """A pool's parameters, normalized to 2-D ([N, C, H, W] with H = 1 for 1-D pools)."""

    spatial_rank: int
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int]
    in_size: tuple[int, int]
    out_size: tuple[int, int]

    @staticmethod
    def of(node: torch.fx.Node, spatial_rank: int, kernel, stride, padding, out_value: torch.Tensor) -> "PoolWindow":
        kernel = spatial.expand(kernel, spatial_rank)
        stride = spatial.expand(stride, spatial_rank) if stride else kernel  # torch: empty stride = kernel
        padding = spatial.expand(padding, spatial_rank)
        in_size = spatial.spatial_shape(node.args[0].meta["val"], spatial_rank)
        out_size = spatial.spatial_shape(out_value, spatial_rank)
        if spatial_rank == 1:
            kernel, stride, padding, in_size, out_size = (
                (1, *kernel), (1, *stride), (0, *padding), (1, *in_size), (1, *out_size)
            )
        return PoolWindow(spatial_rank, kernel, stride, padding, in_size, out_size)

    def plans(self, *, count_pad: bool, count_ceil: bool) -> list[AxisPlan]:
        return [
            plan_axis(i, k, s, p, o, count_pad=count_pad, count_ceil=count_ceil)
            for i, k, s, p, o in zip(self.in_size, self.kernel, self.stride, self.padding, self.out_size)
        ]

    def limits_reason(self) -> str | None:
        return spatial.window_limits_reason(self.kernel, self.stride)


def pool_input_reason(node: torch.fx.Node, spatial_rank: int) -> str | None:
    reason = spatial.float_input_reason(node)
    if reason:
        return reason
    rank = node.args[0].meta["val"].dim()
    if rank not in (spatial_rank + 1, spatial_rank + 2):
        return f"a {spatial_rank}-D pool needs a rank-{spatial_rank + 1} or rank-{spatial_rank + 2} input, not rank {rank}"
    return None


def _prepared_input(graph: TosaGraph, node: torch.fx.Node, window: PoolWindow, plans: Sequence[AxisPlan]) -> TosaTensor:
    """The channels-last input, cropped and zero-padded by the counted padding."""
    nhwc = spatial.to_channels_last(graph, graph.value(node.args[0]), window.spatial_rank)
    nhwc = spatial.crop_trailing(graph, nhwc, [p.crop_after for p in plans])
    return spatial.pad(graph, nhwc, [(0, 0), *(p.counted for p in plans), (0, 0)])


def _pool_shape(nhwc: TosaTensor, window: PoolWindow) -> tuple[int, ...]:
    return (nhwc.shape[0], *window.out_size, nhwc.shape[-1])


def _uncounted(plans: Sequence[AxisPlan]) -> list[int]:
    return [v for p in plans for v in p.uncounted]


def max_pool(graph: TosaGraph, node: torch.fx.Node, window: PoolWindow, out: TosaTensor) -> None:
    plans = window.plans(count_pad=False, count_ceil=False)
    nhwc = _prepared_input(graph, node, window, plans)
    attrs = (list(window.kernel), list(window.stride), _uncounted(plans), ts.NanPropagationMode.PROPAGATE)
    result = graph.emit(ts.Op.MAX_POOL2D, [nhwc], _pool_shape(nhwc, window), nhwc.dtype, *attrs)
    spatial.write_channels_first(graph, result, out)


def pool_dilation(window: PoolWindow, dilation) -> tuple[int, int]:
    """torch's dilation argument in the 2-D form of ``window``."""
    dilation = spatial.expand(dilation, window.spatial_rank)
    return (1, *dilation) if window.spatial_rank == 1 else tuple(dilation)


def max_pool_reason(node: torch.fx.Node, window: PoolWindow, dilation) -> str | None:
    dilation = pool_dilation(window, dilation)
    if any(d < 1 for d in dilation):
        return f"dilation {list(dilation)} must be positive"
    if any(d != 1 for d in dilation):
        return window.limits_reason()
    return window.limits_reason() or plan_reason(window.plans(count_pad=False, count_ceil=False), window.kernel)


def _lowest(dtype) -> float:
    """The padding a max pool never picks: torch pads with -inf."""
    if dtype in (ts.DType.INT8, ts.DType.INT16, ts.DType.INT32):
        return float(np.iinfo({ts.DType.INT8: np.int8, ts.DType.INT16: np.int16, ts.DType.INT32: np.int32}[dtype]).min)
    return -math.inf


def _max_along_rows(graph: TosaGraph, nhwc: TosaTensor, kernel: int, dilation: int) -> TosaTensor:
    """Every row window's maximum at stride 1 (``kernel`` taps ``dilation`` apart), of NHWC.

    Rows ``dilation`` apart are moved next to each other (one batch per residue), so the
    dilated window becomes an ordinary [kernel, 1] MAX_POOL2D, then moved back.
    """
    batch, rows, cols, channels = nhwc.shape
    attrs = ([kernel, 1], [1, 1], [0, 0, 0, 0], ts.NanPropagationMode.PROPAGATE)
    if dilation == 1:
        return graph.emit(ts.Op.MAX_POOL2D, [nhwc], (batch, rows - kernel + 1, cols, channels), nhwc.dtype, *attrs)
    per_residue = -(-rows // dilation)
    padded = spatial.pad(graph, nhwc, [(0, 0), (0, per_residue * dilation - rows), (0, 0), (0, 0)], _lowest(nhwc.dtype))
    grouped = graph.transpose(graph.reshape(padded, (batch, per_residue, dilation, cols * channels)), (0, 2, 1, 3))
    batches = graph.reshape(grouped, (batch * dilation, per_residue, cols, channels))
    windows = per_residue - kernel + 1
    pooled = graph.emit(ts.Op.MAX_POOL2D, [batches], (batch * dilation, windows, cols, channels), nhwc.dtype, *attrs)
    back = graph.transpose(graph.reshape(pooled, (batch, dilation, windows, cols * channels)), (0, 2, 1, 3))
    interleaved = graph.reshape(back, (batch, windows * dilation, cols, channels))
    return spatial.slice_axis(graph, interleaved, 1, 0, rows - (kernel - 1) * dilation)


def dilated_max_pool(graph: TosaGraph, node: torch.fx.Node, window: PoolWindow, dilation, out: TosaTensor) -> None:
    """A max pool whose window skips ``dilation - 1`` elements, which MAX_POOL2D cannot.

    Max is separable: rows, then columns (transposed to rows), each give every window's
    maximum at stride 1; a 1x1 MAX_POOL2D then keeps every ``stride``-th. torch's padding
    (and ceil_mode's extra) is an explicit PAD with the lowest value, which no window
    picks since each holds at least one real element.
    """
    dilation = pool_dilation(window, dilation)
    extents = [(k - 1) * d + 1 for k, d in zip(window.kernel, dilation)]
    fits = [
        spatial.fit_window(i, e, s, p, p, o)
        for i, e, s, p, o in zip(window.in_size, extents, window.stride, window.padding, window.out_size)
    ]
    nhwc = spatial.to_channels_last(graph, graph.value(node.args[0]), window.spatial_rank)
    nhwc = spatial.crop_trailing(graph, nhwc, [f.crop_after for f in fits])
    padding = [(0, 0), *((f.pad_before, f.pad_after) for f in fits), (0, 0)]
    result = spatial.pad(graph, nhwc, padding, value=_lowest(nhwc.dtype))
    if window.kernel[0] > 1:
        result = _max_along_rows(graph, result, window.kernel[0], dilation[0])
    swap = (0, 2, 1, 3)
    if window.kernel[1] > 1:
        columns = _max_along_rows(graph, graph.transpose(result, swap), window.kernel[1], dilation[1])
        result = graph.transpose(columns, swap)
    if any(s != 1 for s in window.stride):
        attrs = ([1, 1], list(window.stride), [0, 0, 0, 0], ts.NanPropagationMode.PROPAGATE)
        result = graph.emit(ts.Op.MAX_POOL2D, [result], _pool_shape(result, window), result.dtype, *attrs)
    spatial.write_channels_first(graph, result, out)


def _avg_plans(window: PoolWindow, count_include_pad: bool, divisor_override) -> list[AxisPlan]:
    if divisor_override:
        return window.plans(count_pad=True, count_ceil=True)
    return window.plans(count_pad=count_include_pad, count_ceil=False)


def avg_pool_reason(node: torch.fx.Node, window: PoolWindow, count_include_pad: bool, divisor_override) -> str | None:
    if divisor_override is not None and divisor_override <= 0:
        return f"divisor_override {divisor_override} must be positive"
    plans = _avg_plans(window, count_include_pad, divisor_override)
    return window.limits_reason() or plan_reason(plans, window.kernel)


def avg_pool(graph: TosaGraph, node: torch.fx.Node, window: PoolWindow, out: TosaTensor, count_include_pad: bool = True, divisor_override=None) -> None:
    plans = _avg_plans(window, count_include_pad, divisor_override)
    nhwc = _prepared_input(graph, node, window, plans)
    zp = spatial.zero_point(graph, nhwc.dtype)
    attrs = (list(window.kernel), list(window.stride), _uncounted(plans), spatial.accumulator_dtype(nhwc.dtype))
    result = graph.emit(ts.Op.AVG_POOL2D, [nhwc, zp, zp], _pool_shape(nhwc, window), nhwc.dtype, *attrs)
    if divisor_override:
        # Every window is whole (all padding is explicit), so the pool divided by the kernel area.
        factor = graph.const([math.prod(window.kernel) / divisor_override], result.dtype, shape=(1,) * result.rank, stem="scale")
        shift = graph.const([0], ts.DType.INT8, stem="shift")
        result = graph.emit(ts.Op.MUL, [result, factor, shift], result.shape, result.dtype)
    spatial.write_channels_first(graph, result, out)


def torch_divisors(size: int, kernel: int, stride: int, padding: int, out_size: int, count_include_pad: bool) -> list[int]:
    """What torch's average pool divides each window of one axis by: the window clipped to the
    padded input (count_include_pad) or to the input itself."""
    divisors = []
    for index in range(out_size):
        start = index * stride - padding
        end = min(start + kernel, size + padding)
        if not count_include_pad:
            start, end = max(start, 0), min(end, size)
        divisors.append(end - start)
    return divisors


def average_divisors(window: PoolWindow, count_include_pad: bool = True, divisor_override=None) -> np.ndarray:
    """torch's divisor of every output position ([out_h, out_w]); the axes' counts multiply.

    Each is at least 1: torch drops a ceil_mode window that would start past the input."""
    if divisor_override:
        return np.full(window.out_size, int(divisor_override), dtype=np.int64)
    per_axis = [
        torch_divisors(i, k, s, p, o, count_include_pad)
        for i, k, s, p, o in zip(window.in_size, window.kernel, window.stride, window.padding, window.out_size)
    ]
    return np.outer(*per_axis)


def quantized_avg_pool_reason(node: torch.fx.Node, spec, window: PoolWindow) -> str | None:
    return (
        window.limits_reason()
        or integer_sums.int16_zero_point_reason(node)
        or integer_sums.sum_reason(node, spec, math.prod(window.kernel), "a pooling window")
    )


def quantized_avg_pool(graph: TosaGraph, node: torch.fx.Node, window: PoolWindow, divisors: np.ndarray) -> None:
    """Window sums of ``q - zero_point`` (DEPTHWISE_CONV2D, unit weights), then one RESCALE."""
    source = input_qparams(node, 0)
    nhwc = spatial.to_channels_last(graph, graph.value(node.args[0]), window.spatial_rank)
    fits = [
        spatial.fit_window(i, k, s, p, p, o)
        for i, k, s, p, o in zip(window.in_size, window.kernel, window.stride, window.padding, window.out_size)
    ]
    nhwc = spatial.crop_trailing(graph, nhwc, [f.crop_after for f in fits])
    batch, channels = nhwc.shape[0], nhwc.shape[-1]
    pads = [v for f in fits for v in (f.pad_before, f.pad_after)]
    if integer_sums.averages_in_place(node) and not any(pads) and (divisors == math.prod(window.kernel)).all():
        pooled = integer_sums.average_pool(
            graph, nhwc, window.kernel, window.stride, (batch, *window.out_size, channels), int(source.zero_point)
        )
        spatial.write_channels_first(graph, pooled, graph.out(node))
        return
    accumulator = integer_sums.accumulator_dtype(nhwc.dtype)
    operands = [
        nhwc,
        graph.const(np.ones((*window.kernel, channels, 1)), ts.DType.INT8, stem="unit_weights"),
        graph.const([0], accumulator, stem="bias"),
        graph.const([int(source.zero_point)], nhwc.dtype, stem="input_zp"),
        graph.const([0], ts.DType.INT8, stem="weight_zp"),
    ]
    attrs = (pads, list(window.stride), [1, 1], False, accumulator)
    sums = graph.emit(ts.Op.DEPTHWISE_CONV2D, operands, (batch, *window.out_size, channels), accumulator, *attrs)
    divide_window_sums(graph, node, integer_sums.int32_accumulator(graph, sums), divisors)


def divide_window_sums(graph: TosaGraph, node: torch.fx.Node, sums: TosaTensor, divisors: np.ndarray) -> None:
    """``node``'s quantized output from int32 NHWC window sums of ``q - zero_point``: one
    RESCALE by ``input scale / (divisor * output scale)``."""
    source, target = input_qparams(node, 0), output_qparams(node)
    batch, channels = sums.shape[0], sums.shape[-1]
    unit = float(source.scale) / float(target.scale)
    out = graph.out(node)
    zero_point = int(target.zero_point)
    if (divisors == divisors.flat[0]).all():
        result = rescale(graph, sums, unit / int(divisors.flat[0]), out.dtype, output_zp=zero_point)
        spatial.write_channels_first(graph, result, out)
        return
    # Divisors vary by position: make positions the last axis, where RESCALE takes one scale each.
    nchw = graph.transpose(sums, spatial.channels_first_perm(sums.rank))
    positions = graph.reshape(nchw, (batch * channels, divisors.size))
    result = rescale(graph, positions, [unit / int(d) for d in divisors.flat], out.dtype, output_zp=zero_point)
    graph.reshape_into(result, out)


def adaptive_windows(size: int, out_size: int) -> list[tuple[int, int]]:
    """torch's adaptive pooling windows of one axis: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [(i * size // out_size, -(-(i + 1) * size // out_size)) for i in range(out_size)]


def adaptive_window_sums(graph: TosaGraph, nhwc: TosaTensor, out_size: Sequence[int]) -> TosaTensor:
    """The sum of every adaptive window of an NHWC tensor, windows of any sizes (they may
    overlap or repeat elements): per axis, a REDUCE_SUM of each window's slice, concatenated."""
    result = nhwc
    for axis, count in ((1, out_size[0]), (2, out_size[1])):
        pieces = []
        for start, end in adaptive_windows(result.shape[axis], count):
            piece = spatial.slice_axis(graph, result, axis, start, end - start)
            shape = tuple(1 if a == axis else d for a, d in enumerate(piece.shape))
            pieces.append(piece if end - start == 1 else graph.emit(ts.Op.REDUCE_SUM, [piece], shape, piece.dtype, axis))
        result = shapes.concat(graph, pieces, axis)
    return result


class PoolVisitor(NodeVisitor):
    """A pool over ``spatial_rank`` axes: the input checks, then ``pool_reason`` (FP) or
    ``quantized_pool_reason`` (INT)."""

    profiles = frozenset({"FP", "INT"})
    spatial_rank: ClassVar[int]
    extension_floats = EXTENSION_FLOATS

    def result_value(self, node: torch.fx.Node) -> torch.Tensor:
        """The pooled values (a multi-output op overrides this)."""
        return node.meta["val"]

    def window(self, node: torch.fx.Node) -> tuple[PoolWindow, dict]:
        """The window torch's kernel_size/stride/padding arguments describe, and all the arguments."""
        args = spatial.call_arguments(node)
        window = PoolWindow.of(node, self.spatial_rank, args["kernel_size"], args["stride"], args["padding"], self.result_value(node))
        return window, args

    def pool_reason(self, node: torch.fx.Node) -> str | None:
        raise NotImplementedError

    def quantized_pool_reason(self, node: torch.fx.Node, spec) -> str | None:
        return self.pool_reason(node)

    def check(self, node, spec):
        reason = pool_input_reason(node, self.spatial_rank)
        if reason:
            return reason
        return self.quantized_pool_reason(node, spec) if is_int_spec(spec) else self.pool_reason(node)


class MaxPoolVisitor(PoolVisitor):
    def pool_reason(self, node):
        window, args = self.window(node)
        return max_pool_reason(node, window, args["dilation"])

    def pool_into(self, node, graph, out: TosaTensor) -> None:
        window, args = self.window(node)
        if any(d != 1 for d in pool_dilation(window, args["dilation"])):
            dilated_max_pool(graph, node, window, args["dilation"], out)
        else:
            max_pool(graph, node, window, out)

    def define(self, node, graph):
        self.pool_into(node, graph, graph.out(node))


class AvgPoolVisitor(PoolVisitor):
    """avg_pool1d/2d (avg_pool1d has no divisor_override argument)."""

    handles_qparams = True

    def pool_reason(self, node):
        window, args = self.window(node)
        if args.get("divisor_override") and is_fp8(node.meta["val"].dtype):
            return "divisor_override on fp8 needs a MUL, which TOSA 1.0 has no fp8 form of"
        return avg_pool_reason(node, window, args["count_include_pad"], args.get("divisor_override"))

    def divisors(self, node) -> tuple[PoolWindow, np.ndarray]:
        window, args = self.window(node)
        return window, average_divisors(window, args["count_include_pad"], args.get("divisor_override"))

    def quantized_pool_reason(self, node, spec):
        override = self.window(node)[1].get("divisor_override")
        if override is not None and override <= 0:
            return f"divisor_override {override} must be positive"
        return quantized_avg_pool_reason(node, spec, self.window(node)[0])

    def define(self, node, graph):
        if is_quantized(node):
            quantized_avg_pool(graph, node, *self.divisors(node))
            return
        window, args = self.window(node)
        avg_pool(graph, node, window, graph.out(node), args["count_include_pad"], args.get("divisor_override"))
