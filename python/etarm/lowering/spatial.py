"""Helpers shared by the convolution, pooling and resize visitors.

torch keeps images channels-first (NCHW / NCDHW); TOSA's spatial operators take them
channels-last (NHWC / NDHWC). Visitors convert with ``to_channels_last`` and
``write_channels_first``, which emit TRANSPOSEs that ``tosa/cleanup.py`` later cancels
between consecutive spatial ops. 1-D ops run as 2-D ones with a unit height.

TOSA also requires every sliding window to fit the padded input exactly
(``(in + pad_before + pad_after - extent) % stride == 0``) where torch floors; ``fit_window``
computes the TOSA padding and how many unread trailing elements to slice off.

The data-movement helpers here (``permute``, ``reshape``, ``slice_axis``, ``pad``) act on
a constant's data at compile time (weights are rearranged without emitting ops).
``PixelShuffleFamilyVisitor`` is the visitor pixel_shuffle and pixel_unshuffle share.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import numpy_dtype

# TOSA 1.0 level 8K bounds on kernel, stride and padding sizes.
MAX_KERNEL = 8192
MAX_STRIDE = 8192

FLOAT_DTYPES = (torch.float32, torch.float16, *EXTENSION_FLOATS)
_FP8 = (ts.DType.FP8E4M3, ts.DType.FP8E5M2)


# --- arguments ---------------------------------------------------------------------------


def call_arguments(node: torch.fx.Node) -> dict:
    """The node's arguments by schema name, defaults filled in."""
    schema = node.target._schema
    values = {}
    for index, argument in enumerate(schema.arguments):
        if index < len(node.args):
            values[argument.name] = node.args[index]
        elif argument.name in node.kwargs:
            values[argument.name] = node.kwargs[argument.name]
        else:
            values[argument.name] = argument.default_value if argument.has_default_value() else None
    return values


def expand(value, count: int) -> tuple[int, ...]:
    """torch's int-or-list spatial arguments (``kernel_size=3``, ``stride=[2]``) as ``count`` ints."""
    if isinstance(value, int):
        return (value,) * count
    value = tuple(int(v) for v in value)
    return value * count if len(value) == 1 else value


def float_input_reason(node: torch.fx.Node, what: str = "input") -> str | None:
    """Why the node's first input cannot be lowered on the FP profile (dtype or dynamic shape)."""
    fake = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    if not isinstance(fake, torch.Tensor):
        return f"{what} is not a tensor"
    if fake.dtype not in FLOAT_DTYPES:
        return f"{what} dtype {fake.dtype} is not supported (floats only)"
    results = node.meta["val"]
    for value in (fake, *(results if isinstance(results, (tuple, list)) else [results])):
        if isinstance(value, torch.Tensor) and not all(isinstance(d, int) for d in value.shape):
            return "dynamic shapes are not supported"
    return None


def accumulator_dtype(dtype):
    """Float convolutions and pools accumulate in FP32 (torch accumulates fp16/bf16 in fp32 too);
    TOSA 1.0 has fp8 ones accumulate in FP16."""
    return ts.DType.FP16 if dtype in _FP8 else ts.DType.FP32


def product_dtype(dtype):
    """The result (and bias) type of a float CONV/MATMUL on ``dtype`` operands: fp8 gives FP16."""
    return ts.DType.FP16 if dtype in _FP8 else dtype


def zero_point(graph: TosaGraph, dtype) -> TosaTensor:
    """The input/weight/output zero-point operand TOSA 1.0 CONV/AVG_POOL take (0 for floats)."""
    return graph.const([0], dtype, shape=(1,), stem="zp")


# --- layout ------------------------------------------------------------------------------


def channels_last_perm(rank: int) -> tuple[int, ...]:
    """[N, C, *spatial] -> [N, *spatial, C]."""
    return (0, *range(2, rank), 1)


def channels_first_perm(rank: int) -> tuple[int, ...]:
    """[N, *spatial, C] -> [N, C, *spatial]."""
    return (0, rank - 1, *range(1, rank - 1))


def to_channels_last(graph: TosaGraph, tensor: TosaTensor, spatial_rank: int) -> TosaTensor:
    """[N,] C, *spatial -> NHWC / NDHWC. An unbatched input gets N = 1 and a 1-D one a unit
    height ([N, C, L] -> [N, 1, L, C]) so it can use the 2-D operators."""
    shape = tensor.shape
    if tensor.rank == spatial_rank + 1:
        shape = (1, *shape)
    if spatial_rank == 1:
        shape = (*shape[:2], 1, shape[2])
    tensor = graph.reshape(tensor, shape)
    return graph.transpose(tensor, channels_last_perm(tensor.rank))


def write_channels_first(graph: TosaGraph, tensor: TosaTensor, out: TosaTensor) -> None:
    """Writes a channels-last result into ``out``, the node's channels-first (maybe 1-D or
    unbatched) result: the inverse of ``to_channels_last``."""
    perm = channels_first_perm(tensor.rank)
    shape = tuple(tensor.shape[p] for p in perm)
    if shape == out.shape:
        graph.op(ts.Op.TRANSPOSE, [tensor], [out], list(perm))
        return
    transposed = graph.transpose(tensor, perm)
    graph.reshape_into(transposed, out)






def _folded(graph: TosaGraph, tensor: TosaTensor, data: np.ndarray) -> TosaTensor:
    """A constant with ``tensor``'s type: data movement of a constant done at compile time."""
    return graph.const(np.ascontiguousarray(data), tensor.dtype, stem="folded")


def slice_box(graph: TosaGraph, tensor: TosaTensor, starts: Sequence[int], sizes: Sequence[int]) -> TosaTensor:
    """``tensor[starts[0]:starts[0] + sizes[0], ...]`` in one SLICE."""
    starts, sizes = [int(v) for v in starts], [int(v) for v in sizes]
    if not any(starts) and tuple(sizes) == tensor.shape:
        return tensor
    data = graph.constant_data(tensor)
    if data is not None:
        return _folded(graph, tensor, data[tuple(slice(a, a + n) for a, n in zip(starts, sizes))])
    inputs = [tensor, graph.shape_const(starts), graph.shape_const(sizes)]
    return graph.emit(ts.Op.SLICE, inputs, sizes, tensor.dtype)


def slice_axis(graph: TosaGraph, tensor: TosaTensor, axis: int, start: int, size: int) -> TosaTensor:
    """``tensor[..., start:start + size, ...]`` along ``axis``."""
    return slice_box(graph, tensor, *shapes.axis_box(tensor.shape, axis, start, size))


def pad(graph: TosaGraph, tensor: TosaTensor, pads: Sequence[tuple[int, int]], value: float = 0.0) -> TosaTensor:
    """Pads each axis by (before, after) with ``value``."""
    pads = [(int(a), int(b)) for a, b in pads]
    if not any(a or b for a, b in pads):
        return tensor
    data = graph.constant_data(tensor)
    if data is not None:
        return _folded(graph, tensor, np.pad(data, pads, constant_values=value))
    shape = [d + a + b for d, (a, b) in zip(tensor.shape, pads)]
    padding = graph.shape_const([v for pair in pads for v in pair])
    pad_value = graph.const([value], tensor.dtype, shape=(1,), stem="pad_value")
    return graph.emit(ts.Op.PAD, [tensor, padding, pad_value], shape, tensor.dtype)


def dilate(graph: TosaGraph, tensor: TosaTensor, axis: int, dilation: int) -> TosaTensor:
    """Inserts ``dilation - 1`` zeros between the elements along ``axis`` (kernel dilation)."""
    size = tensor.shape[axis]
    if dilation == 1 or size == 1:
        return tensor
    data = graph.constant_data(tensor)
    if data is not None:
        shape = list(data.shape)
        shape[axis] = (size - 1) * dilation + 1
        dilated = np.zeros(shape, dtype=numpy_dtype(tensor.dtype))
        index = [slice(None)] * data.ndim
        index[axis] = slice(None, None, dilation)
        dilated[tuple(index)] = data
        return _folded(graph, tensor, dilated)
    # [.., K, ..] -> [.., K, 1, ..] -> pad to [.., K, d, ..] -> [.., K*d, ..] -> first (K-1)*d+1.
    outer, inner = tensor.shape[:axis], tensor.shape[axis + 1 :]
    split = graph.reshape(tensor, (*outer, size, 1, *inner))
    pads = [(0, 0)] * split.rank
    pads[axis + 1] = (0, dilation - 1)
    spread = graph.reshape(pad(graph, split, pads), (*outer, size * dilation, *inner))
    return slice_axis(graph, spread, axis, 0, (size - 1) * dilation + 1)


# --- sliding-window geometry ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class WindowFit:
    """How one spatial axis of a sliding-window op maps onto TOSA's exact-fit rule."""

    pad_before: int
    pad_after: int  # may exceed torch's padding (ceil_mode) or be reduced (unread rows)
    crop_after: int  # trailing input elements no window reads, sliced off before the op


def fit_window(size: int, extent: int, stride: int, pad_before: int, pad_after: int, out_size: int) -> WindowFit:
    """TOSA padding for ``out_size`` windows of ``extent`` elements every ``stride``.

    ``out_size`` is torch's (it may have rounded up with ceil_mode or down otherwise):
    padding after the input grows to cover the last window, or shrinks (then the input
    is cropped) so the last window ends exactly at the padded edge.
    """
    needed = (out_size - 1) * stride + extent
    excess = size + pad_before + pad_after - needed
    if excess <= 0:
        return WindowFit(pad_before, pad_after - excess, 0)
    dropped = min(excess, pad_after)
    return WindowFit(pad_before, pad_after - dropped, excess - dropped)


def crop_trailing(graph: TosaGraph, tensor: TosaTensor, crops: Sequence[int], first_axis: int = 1) -> TosaTensor:
    """Slices ``crops[i]`` trailing elements off axis ``first_axis + i``."""
    sizes = list(tensor.shape)
    for i, crop in enumerate(crops):
        sizes[first_axis + i] -= crop
    return slice_box(graph, tensor, [0] * tensor.rank, sizes)


def window_limits_reason(kernel: Sequence[int], stride: Sequence[int]) -> str | None:
    if any(k < 1 or k > MAX_KERNEL for k in kernel):
        return f"kernel_size {list(kernel)} is outside TOSA's 1..{MAX_KERNEL}"
    if any(s < 1 or s > MAX_STRIDE for s in stride):
        return f"stride {list(stride)} is outside TOSA's 1..{MAX_STRIDE}"
    return None


def spatial_shape(value: torch.Tensor, spatial_rank: int) -> tuple[int, ...]:
    """The trailing ``spatial_rank`` sizes of a channels-first fake tensor."""
    return tuple(int(d) for d in value.shape[-spatial_rank:])


# --- pixel shuffle ---------------------------------------------------------------------------


def pixel_shuffle_reason(node: torch.fx.Node) -> str | None:
    """pixel_shuffle / pixel_unshuffle move data only: any TOSA dtype, static shapes."""
    value = node.args[0].meta["val"]
    if value.dtype not in (torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32, torch.bool):
        return f"dtype {value.dtype} is not supported"
    if not all(isinstance(d, int) for d in value.shape):
        return "dynamic shapes are not supported"
    if value.dim() < 3:
        return f"input must have rank >= 3, not {value.dim()}"
    return None


def shuffle_pixels(graph: TosaGraph, node: torch.fx.Node, factor: int, *, inverse: bool) -> None:
    """pixel_shuffle: [*, C*r*r, H, W] -> [B, C, r, r, H, W] -> [B, C, H, r, W, r] -> [*, C, H*r, W*r];
    pixel_unshuffle is the reverse. One rank-6 TRANSPOSE between two RESHAPEs."""
    x = graph.value(node.args[0])
    out = graph.out(node)
    r = factor
    batch = math.prod(x.shape[:-3])
    if inverse:
        channels, height, width = x.shape[-3], x.shape[-2] // r, x.shape[-1] // r
        blocks = graph.reshape(x, (batch, channels, height, r, width, r))
        moved = graph.transpose(blocks, (0, 1, 3, 5, 2, 4))
    else:
        channels, height, width = x.shape[-3] // (r * r), x.shape[-2], x.shape[-1]
        blocks = graph.reshape(x, (batch, channels, r, r, height, width))
        moved = graph.transpose(blocks, (0, 1, 4, 2, 5, 3))
    graph.reshape_into(moved, out)


class PixelShuffleFamilyVisitor(NodeVisitor):
    """aten.pixel_shuffle / aten.pixel_unshuffle (``inverse``), kept whole: ``shuffle_pixels``."""
    extension_floats = EXTENSION_FLOATS

    inverse: bool

    def check(self, node, spec):
        return pixel_shuffle_reason(node)

    def define(self, node, graph):
        shuffle_pixels(graph, node, int(node.args[1]), inverse=self.inverse)
