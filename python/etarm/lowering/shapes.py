"""Shape and layout helpers shared by the data-movement visitors (view, permute, slice, cat, pad, ...).

TOSA 1.0 data-layout operators (RESHAPE, TRANSPOSE, SLICE, CONCAT, PAD, TILE, REVERSE) move
bool tensors in every profile, fp16/fp32 tensors in the FP profile and int8/int16/int32 tensors
in the INT profile; ``layout_reason`` enforces that, so e.g. an int32 reshape stays on CPU for
TOSA-1.0+FP (float tensors of a quantized INT-only model stand for int8/int16 ones, see
``profile_reason``). Helpers return their input unchanged when the operation would be a no-op, so
visitors never emit identity RESHAPE/SLICE/TILE/TRANSPOSE operators. The base visitors at the
end serve the ops that only check their input's layout, reshape it or pass it on.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import torch
import tosa_serializer as ts

from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor
from etarm.lowering.tensor_math import argument
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.specification import TosaSpecification

# torch dtype -> the TOSA profile whose data-layout operators move it (None: every profile).
# int64 is narrowed to int32 (TOSA 1.0 has no 64-bit integers). bf16 and fp8 also need their
# extension (checked by the registry, see dtype_rules.extension_float_reason).
# NUMERIC_PROFILE: the same for the non-bool dtypes (shared with GATHER, see indexing.py).
NUMERIC_PROFILE = {
    torch.float32: "FP",
    torch.float16: "FP",
    **{dtype: "FP" for dtype in EXTENSION_FLOATS},
    torch.int8: "INT",
    torch.int16: "INT",
    torch.int32: "INT",
    torch.int64: "INT",
}
_LAYOUT_PROFILE = {torch.bool: None, **NUMERIC_PROFILE}


def fake(arg) -> torch.Tensor:
    """The fake tensor an fx node produces."""
    return arg.meta["val"]


def profile_reason(dtype: torch.dtype, needed: str | None, spec: TosaSpecification, what: str) -> str | None:
    """Why ``spec`` cannot hold ``dtype`` (needing profile ``needed``) for an operator, or None.

    Under an INT-only spec a float tensor stands for a PT2E-quantized integer tensor: the
    partitioner only delegates it between quantize/dequantize nodes, which the INT passes
    fold away, so the visitor then moves int8/int16 values.
    """
    if needed is None or needed in spec.profiles:
        return None
    if needed == "FP" and dtype.is_floating_point and spec.supports_int():
        return None
    return f"{what} dtype {dtype} needs the TOSA {needed} profile, which {spec} does not name"


def dtype_reason(dtype: torch.dtype, spec: TosaSpecification, what: str = "input") -> str | None:
    """Why a tensor of ``dtype`` cannot be moved by TOSA data-layout operators under ``spec``."""
    if dtype not in _LAYOUT_PROFILE:
        return f"{what} dtype {dtype} is not supported by TOSA data-layout operators"
    return profile_reason(dtype, _LAYOUT_PROFILE[dtype], spec, what)


def alias_reason(value) -> str | None:
    """Why a node that emits no operator (alias, detach) cannot bind ``value``, or None.

    The dtype only has to exist in TOSA (in some profile), as nothing operates on it.
    """
    if not isinstance(value, torch.Tensor):
        return "result is not a tensor"
    if value.numel() == 0 or value.dtype not in _LAYOUT_PROFILE:
        return f"result ({value.dtype}, shape {list(value.shape)}) has no TOSA tensor"
    return None


def tensor_reason(value, spec: TosaSpecification, what: str = "input") -> str | None:
    """Why a (fake) tensor cannot be moved by TOSA data-layout operators, or None."""
    if not isinstance(value, torch.Tensor):
        return f"{what} is not a tensor"
    if value.numel() == 0:
        return f"{what} is empty (shape {list(value.shape)}); TOSA tensors have no zero-size dimensions"
    return dtype_reason(value.dtype, spec, what)


def layout_reason(node: torch.fx.Node, spec: TosaSpecification, *tensor_args) -> str | None:
    """Checks the result of ``node`` and the given tensor arguments (fx nodes) for a data-layout op."""
    results = fake(node)
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    for i, value in enumerate(results):
        reason = tensor_reason(value, spec, "result" if len(results) == 1 else f"result {i}")
        if reason:
            return reason
    for i, arg in enumerate(tensor_args):
        reason = tensor_reason(fake(arg), spec, "input" if len(tensor_args) == 1 else f"input {i}")
        if reason:
            return reason
    return None


def normalize_dim(dim: int, rank: int) -> int:
    """A torch dim (negative counts from the end) as an axis; a 0-d tensor has one axis, like torch."""
    rank = max(rank, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"dim {dim} is out of range for rank {rank}")
    return dim % rank


def normalize_dims(dims: Sequence[int], rank: int) -> list[int]:
    """``dims`` as axes to move (permute, flip); a 0-d tensor has none, whatever torch accepted."""
    return [normalize_dim(d, rank) for d in dims] if rank else []


def dim_reason(dim, rank: int, what: str = "dim") -> str | None:
    if not isinstance(dim, int):
        return f"{what} {dim!r} is not a constant integer"
    if not -max(rank, 1) <= dim < max(rank, 1):
        return f"{what} {dim} is out of range for a rank-{rank} input"
    return None


def at_least_1d(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """Most TOSA data-layout operators need rank >= 1: a 0-d tensor becomes shape [1]."""
    return graph.reshape(tensor, (1,)) if tensor.rank == 0 else tensor


def bind_reshaped(graph: TosaGraph, node: torch.fx.Node, tensor: TosaTensor) -> TosaTensor:
    """Binds ``tensor`` reshaped to ``node``'s result shape as the node's value."""
    tensor = graph.reshape(tensor, tuple(fake(node).shape))
    graph.bind(node, tensor)
    return tensor


# --- single operators ---------------------------------------------------------------------


def slice_tensor(graph: TosaGraph, tensor: TosaTensor, start: Sequence[int], size: Sequence[int]) -> TosaTensor:
    start, size = tuple(int(s) for s in start), tuple(int(s) for s in size)
    if size == tensor.shape:
        return tensor
    return graph.emit(ts.Op.SLICE, [tensor, graph.shape_const(start), graph.shape_const(size)], size, tensor.dtype)


def axis_box(shape: Sequence[int], axis: int, start: int, length: int) -> tuple[list[int], list[int]]:
    """SLICE's (start, size) for ``[start, start + length)`` along ``axis`` of ``shape``."""
    begin = [0] * len(shape)
    begin[axis] = start
    size = list(shape)
    size[axis] = length
    return begin, size


def narrow(graph: TosaGraph, tensor: TosaTensor, axis: int, start: int, length: int) -> TosaTensor:
    """``tensor`` restricted to ``[start, start + length)`` along ``axis``."""
    return slice_tensor(graph, tensor, *axis_box(tensor.shape, axis, start, length))



def tile(graph: TosaGraph, tensor: TosaTensor, multiples: Sequence[int]) -> TosaTensor:
    multiples = [int(m) for m in multiples]
    if all(m == 1 for m in multiples):
        return tensor
    shape = tuple(d * m for d, m in zip(tensor.shape, multiples))
    return graph.emit(ts.Op.TILE, [tensor, graph.shape_const(multiples)], shape, tensor.dtype)


def concat(graph: TosaGraph, tensors: Sequence[TosaTensor], axis: int) -> TosaTensor:
    if len(tensors) == 1:
        return tensors[0]
    shape = list(tensors[0].shape)
    shape[axis] = sum(t.shape[axis] for t in tensors)
    return graph.emit(ts.Op.CONCAT, list(tensors), shape, tensors[0].dtype, axis)


def reverse(graph: TosaGraph, tensor: TosaTensor, axis: int) -> TosaTensor:
    if tensor.shape[axis] == 1:
        return tensor
    return graph.emit(ts.Op.REVERSE, [tensor], tensor.shape, tensor.dtype, axis)


def pad(graph: TosaGraph, tensor: TosaTensor, padding: Sequence[tuple[int, int]], value=0) -> TosaTensor:
    """PAD with ``(before, after)`` non-negative amounts per axis, filling with ``value``."""
    padding = [(int(b), int(a)) for b, a in padding]
    if all(b == 0 and a == 0 for b, a in padding):
        return tensor
    shape = tuple(d + b + a for d, (b, a) in zip(tensor.shape, padding))
    flat = [amount for pair in padding for amount in pair]
    pad_const = graph.const([value], tensor.dtype, shape=(1,), stem="pad_const")
    return graph.emit(ts.Op.PAD, [tensor, graph.shape_const(flat), pad_const], shape, tensor.dtype)


# --- strided access ---------------------------------------------------------------------------


@dataclasses.dataclass
class StridedWindow:
    """Elements ``start, start + step, ...`` (``count`` of them) along one axis, seen as one column.

    TOSA SLICE has no step, so the span holding the elements is cut out (``low`` .. ``low + span``,
    padded by ``padding`` past the end of the axis when it does not fit), reshaped to
    ``[outer, count, step, inner]``, and the wanted elements are column ``column`` of axis 2.
    """

    grouped: TosaTensor
    low: int
    padding: int
    column: int


def strided_window(graph: TosaGraph, tensor: TosaTensor, axis: int, start: int, step: int, count: int) -> StridedWindow:
    size = tensor.shape[axis]
    span = step * count
    # Start the span up to step-1 elements early so it fits in the axis and needs no padding;
    # only when the span is longer than the whole axis it starts at 0 and is padded at the end.
    column = min(start, max(0, start + span - size))
    low = start - column
    padding = max(0, low + span - size)
    region = narrow(graph, tensor, axis, low, span - padding)
    region = pad(graph, region, [(0, padding if a == axis else 0) for a in range(tensor.rank)])
    outer = math.prod(tensor.shape[:axis])
    inner = math.prod(tensor.shape[axis + 1 :])
    grouped = graph.reshape(region, (outer, count, step, inner))
    return StridedWindow(grouped, low, padding, column)


def take_strided(graph: TosaGraph, tensor: TosaTensor, axis: int, start: int, step: int, count: int) -> TosaTensor:
    """``tensor`` at ``start, start + step, ...`` (``count`` elements) along ``axis``."""
    if step == 1 or count == 1:
        return narrow(graph, tensor, axis, start, count)
    window = strided_window(graph, tensor, axis, start, step, count)
    outer, _, _, inner = window.grouped.shape
    picked = slice_tensor(graph, window.grouped, (0, 0, window.column, 0), (outer, count, 1, inner))
    shape = tensor.shape[:axis] + (count,) + tensor.shape[axis + 1 :]
    return graph.reshape(picked, shape)


def put_strided(graph: TosaGraph, tensor: TosaTensor, src: TosaTensor, axis: int, start: int, step: int, count: int) -> TosaTensor:
    """``tensor`` with its elements at ``start, start + step, ...`` along ``axis`` replaced by ``src``."""
    size = tensor.shape[axis]
    if step == 1 or count == 1:
        pieces = [narrow(graph, tensor, axis, 0, start)] if start > 0 else []
        pieces.append(src)
        if start + count < size:
            pieces.append(narrow(graph, tensor, axis, start + count, size - start - count))
        return concat(graph, pieces, axis)
    window = strided_window(graph, tensor, axis, start, step, count)
    outer, _, _, inner = window.grouped.shape
    column = graph.reshape(src, (outer, count, 1, inner))
    columns = []
    if window.column > 0:
        columns.append(slice_tensor(graph, window.grouped, (0, 0, 0, 0), (outer, count, window.column, inner)))
    columns.append(column)
    if window.column + 1 < step:
        rest = step - window.column - 1
        columns.append(slice_tensor(graph, window.grouped, (0, 0, window.column + 1, 0), (outer, count, rest, inner)))
    merged = concat(graph, columns, 2)
    span = step * count
    merged = graph.reshape(merged, tensor.shape[:axis] + (span,) + tensor.shape[axis + 1 :])
    merged = narrow(graph, merged, axis, 0, span - window.padding)
    pieces = [narrow(graph, tensor, axis, 0, window.low)] if window.low > 0 else []
    pieces.append(merged)
    high = window.low + span - window.padding
    if high < size:
        pieces.append(narrow(graph, tensor, axis, high, size - high))
    return concat(graph, pieces, axis)


def slice_arguments(node: torch.fx.Node, dim_index: int) -> tuple:
    """(dim, start, end, step) of a slice-like node, from argument ``dim_index`` on (positional or keyword)."""
    return (
        argument(node, dim_index, "dim", 0),
        argument(node, dim_index + 1, "start", None),
        argument(node, dim_index + 2, "end", None),
        argument(node, dim_index + 3, "step", 1),
    )


def slice_reason(rank: int, dim, start, end, step) -> str | None:
    """Why torch slice arguments cannot be lowered (they must be constants), or None."""
    reason = dim_reason(dim, rank)
    if reason:
        return reason
    for name, value in (("start", start), ("end", end)):
        if value is not None and not isinstance(value, int):
            return f"{name} {value!r} is not a constant integer"
    if not isinstance(step, int) or step < 1:
        return f"step {step!r} is not a positive constant integer"
    return None


def slice_bounds(size: int, start, end, step: int) -> tuple[int, int]:
    """torch slice semantics: ``(start, count)`` of ``x[start:end:step]`` on an axis of ``size``."""
    start = 0 if start is None else int(start)
    end = size if end is None else int(end)
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, (end - start + step - 1) // step


class LayoutVisitor(NodeVisitor):
    """An op moving the data of argument 0, which ``layout_reason`` checks (expand, permute, repeat)."""
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        return layout_reason(node, spec, node.args[0])


class ReshapeVisitor(LayoutVisitor):
    """An op that is one RESHAPE of argument 0 to the result's shape (view, squeeze, unsqueeze)."""

    def define(self, node, graph):
        bind_reshaped(graph, node, graph.value(node.args[0]))


class PassThroughVisitor(NodeVisitor):
    """An op that emits no TOSA operator (alias, detach): its result is argument 0's value."""
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        return alias_reason(fake(node))

    def define(self, node, graph):
        graph.bind(node, graph.value(node.args[0]))
