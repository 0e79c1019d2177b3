"""Index tensors and TOSA GATHER for the indexing visitors (index_select, embedding, gather, index).

TOSA GATHER reads rows: values ``[N, K, C]`` and int32 indices ``[N, W]`` give ``[N, W, C]``.
Index tensors arrive as int32 (int64 is narrowed) and must be rearranged to ``[N, W]``:
constant indices are rearranged at compile time; computed ones with TOSA operators. Those
operators on int32 belong to the INT profile, so for a spec without it the indices take a
round trip through fp32 (exact for |index| <= 2**24; ``index_reason`` checks the bound).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import shapes
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.specification import TosaSpecification

# GATHER values: fp16/fp32 in the FP profile, int8/int16/int32 in the INT profile (bool as int8).
_GATHER_PROFILE = shapes.NUMERIC_PROFILE
INDEX_DTYPES = (torch.int32, torch.int64)
# Largest axis whose indices survive the fp32 round trip exactly.
_FP32_EXACT_INDEX = 2**24


def values_reason(value, spec: TosaSpecification, what: str = "input") -> str | None:
    """Why a (fake) tensor cannot be the values of a TOSA GATHER under ``spec``."""
    if not isinstance(value, torch.Tensor):
        return f"{what} is not a tensor"
    if value.numel() == 0:
        return f"{what} is empty (shape {list(value.shape)})"
    if value.dtype == torch.bool:  # gathered as int8 (bool <-> int8 CASTs are PRO-INT)
        return shapes.profile_reason(value.dtype, "INT", spec, what)
    profile = _GATHER_PROFILE.get(value.dtype)
    if profile is None:
        return f"{what} dtype {value.dtype} is not supported by TOSA GATHER"
    return shapes.profile_reason(value.dtype, profile, spec, what)


def index_reason(index, axis_size: int, spec: TosaSpecification, what: str = "index") -> str | None:
    """Why ``index`` (an fx node) cannot index an axis of ``axis_size`` elements, or None."""
    if not isinstance(index, torch.fx.Node) or not isinstance(index.meta.get("val"), torch.Tensor):
        return f"{what} is not a tensor"
    value = index.meta["val"]
    if value.dtype not in INDEX_DTYPES:
        return f"{what} dtype {value.dtype} is not supported (only int32/int64 indices)"
    if value.numel() == 0:
        return f"{what} is empty"
    if axis_size >= 2**31:
        return f"indexed axis of {axis_size} elements exceeds the int32 index range"
    if "INT" not in spec.profiles and axis_size > _FP32_EXACT_INDEX:
        return f"indexed axis of {axis_size} elements is too long for indices without the TOSA INT profile"
    return None


class IndexArithmetic:
    """Emits the operators that rearrange a computed index tensor, in int32 or fp32.

    With the INT profile the work is done on int32 directly; otherwise the indices are
    cast to fp32 first (CAST/RESHAPE/TRANSPOSE/TILE/ADD/SELECT on fp32 are FP-profile ops)
    and cast back to int32 for GATHER only when something had to be done.
    """

    def __init__(self, graph: TosaGraph, index: TosaTensor):
        self.graph = graph
        self.in_fp32 = "INT" not in graph.spec.profiles
        self.tensor = index
        self._started = False

    def _working(self) -> TosaTensor:
        if not self._started:
            self._started = True
            if self.in_fp32:
                self.tensor = self.graph.emit(ts.Op.CAST, [self.tensor], self.tensor.shape, ts.DType.FP32)
        return self.tensor

    def reshape(self, shape: Sequence[int]) -> None:
        if tuple(shape) != self.tensor.shape:
            self.tensor = self.graph.reshape(self._working(), shape)

    def transpose(self, perm: Sequence[int]) -> None:
        if list(perm) != list(range(self.tensor.rank)):
            self.tensor = self.graph.transpose(self._working(), perm)

    def tile(self, multiples: Sequence[int]) -> None:
        if any(m != 1 for m in multiples):
            self.tensor = shapes.tile(self.graph, self._working(), multiples)

    def wrap_negative(self, axis_size: int) -> None:
        """Python-style negative indices: ``i < 0`` reads ``i + axis_size``."""
        graph, t = self.graph, self._working()
        ones = (1,) * t.rank
        zero = graph.const([0], t.dtype, shape=ones, stem="zero")
        size = graph.const([axis_size], t.dtype, shape=ones, stem="axis_size")
        negative = graph.emit(ts.Op.GREATER, [zero, t], t.shape, ts.DType.BOOL)
        shifted = graph.emit(ts.Op.ADD, [t, size], t.shape, t.dtype)
        self.tensor = graph.emit(ts.Op.SELECT, [negative, shifted, t], t.shape, t.dtype)

    def scale(self, factor: int) -> None:
        if factor != 1:
            t = self._working()
            self.tensor = self.graph.binary(ts.Op.MUL, t, self.graph.const([factor], t.dtype, shape=(1,) * t.rank, stem="stride"))

    def plus(self, other: "IndexArithmetic") -> "IndexArithmetic":
        """This index plus ``other`` (broadcast), in the working type."""
        self.tensor = self.graph.binary(ts.Op.ADD, self._working(), other._working())
        return self

    def result(self) -> TosaTensor:
        if self._started and self.in_fp32:
            return self.graph.emit(ts.Op.CAST, [self.tensor], self.tensor.shape, ts.DType.INT32)
        return self.tensor


def gather_indices(
    graph: TosaGraph,
    index: TosaTensor,
    *,
    perm: Sequence[int] | None = None,
    rows: int = 1,
    repeat: int = 1,
    wrap_size: int | None = None,
) -> TosaTensor:
    """``index`` as GATHER indices ``[rows * repeat, W]``.

    The index is transposed by ``perm`` (if given), reshaped to ``[rows, W]`` and repeated
    ``repeat`` times along the rows; with ``wrap_size`` negative entries count from the end.
    """
    data = graph.constants.get(index.name)
    if data is not None:
        array = np.asarray(data, dtype=np.int64).reshape(index.shape)
        if perm is not None:
            array = array.transpose(perm)
        array = array.reshape(rows, -1)
        if wrap_size is not None:
            array = np.where(array < 0, array + wrap_size, array)
        array = np.tile(array, (repeat, 1))
        return graph.const(array.astype(np.int32), ts.DType.INT32, stem="indices")
    arithmetic = IndexArithmetic(graph, index)
    if perm is not None:
        arithmetic.transpose(perm)
    arithmetic.reshape((rows, math.prod(index.shape) // rows))
    if wrap_size is not None:
        arithmetic.wrap_negative(wrap_size)
    arithmetic.tile((repeat, 1))
    return arithmetic.result()


def gather(graph: TosaGraph, values: TosaTensor, indices: TosaTensor) -> TosaTensor:
    """TOSA GATHER: values ``[N, K, C]``, indices ``[N, W]`` -> ``[N, W, C]``. GATHER has no
    bool form: bool values move as int8."""
    n, _, c = values.shape
    shape = (n, indices.shape[1], c)
    if values.dtype == ts.DType.BOOL:
        wide = graph.emit(ts.Op.CAST, [values], values.shape, ts.DType.INT8)
        found = graph.emit(ts.Op.GATHER, [wide, indices], shape, ts.DType.INT8)
        return graph.emit(ts.Op.CAST, [found], shape, ts.DType.BOOL)
    return graph.emit(ts.Op.GATHER, [values, indices], shape, values.dtype)


def select_along(graph: TosaGraph, values: TosaTensor, axis: int, index: TosaTensor, wrap_negative: bool = False) -> TosaTensor:
    """``values`` indexed by the flattened ``index`` along ``axis``: shape ``[outer, W, inner]``.

    This is index_select; embedding and single-tensor aten.index reshape its result.
    """
    values = shapes.at_least_1d(graph, values)
    outer = math.prod(values.shape[:axis])
    size = values.shape[axis]
    inner = math.prod(values.shape[axis + 1 :])
    rows = graph.reshape(values, (outer, size, inner))
    indices = gather_indices(graph, index, repeat=outer, wrap_size=size if wrap_negative else None)
    return gather(graph, rows, indices)


def _broadcast_to_rank(graph: TosaGraph, tensor: TosaTensor, rank: int) -> TosaTensor:
    return graph.reshape(tensor, (1,) * (rank - tensor.rank) + tuple(tensor.shape))


def combined_index(graph: TosaGraph, indices: Sequence[TosaTensor], sizes: Sequence[int], shape: Sequence[int]) -> TosaTensor:
    """Row-major offsets into axes of ``sizes`` from one index tensor per axis, broadcast to
    ``shape`` (negative entries count from the end), as GATHER indices ``[1, prod(shape)]``.

    Constant indices are combined at compile time; computed ones with MUL/ADD in int32, or,
    without the INT profile, in fp32 (exact below 2**24: ``index_reason``)."""
    strides = [math.prod(sizes[k + 1 :]) for k in range(len(sizes))]
    count = math.prod(shape)
    data = [graph.constants.get(index.name) for index in indices]
    if all(d is not None for d in data):
        offsets = np.zeros(shape, dtype=np.int64)
        for array, index, size, stride in zip(data, indices, sizes, strides):
            array = np.asarray(array, dtype=np.int64).reshape(index.shape)
            offsets = offsets + np.where(array < 0, array + size, array) * stride
        return graph.const(offsets.reshape(1, count).astype(np.int32), ts.DType.INT32, stem="indices")
    total = None
    for index, size, stride in zip(indices, sizes, strides):
        term = IndexArithmetic(graph, _broadcast_to_rank(graph, index, len(shape)))
        term.wrap_negative(size)
        term.scale(stride)
        total = term if total is None else total.plus(term)
    total.tile([want // have for want, have in zip(shape, total.tensor.shape)])
    total.reshape((1, count))
    return total.result()


def gather_elements(graph: TosaGraph, values: TosaTensor, axis: int, index: TosaTensor) -> TosaTensor:
    """torch.gather: ``out[p] = values[p with p[axis] = index[p]]``, shaped like ``index``.

    Constant indices become flat offsets into ``values`` seen as ``[1, numel, 1]`` (one
    GATHER). Computed indices need the indexed axis last: ``values`` is transposed and cut
    to the index's extent so every output element gathers from its own row.
    """
    data = graph.constants.get(index.name)
    if data is not None:
        array = np.asarray(data, dtype=np.int64).reshape(index.shape)
        strides = np.array([math.prod(values.shape[d + 1 :]) for d in range(values.rank)], dtype=np.int64)
        coords = np.indices(index.shape, dtype=np.int64)
        coords[axis] = array
        offsets = np.tensordot(strides, coords, axes=1).reshape(1, -1)
        flat = graph.reshape(values, (1, math.prod(values.shape), 1))
        picked = gather(graph, flat, graph.const(offsets.astype(np.int32), ts.DType.INT32, stem="indices"))
        return graph.reshape(picked, index.shape)
    perm = [d for d in range(values.rank) if d != axis] + [axis]
    moved = graph.transpose(values, perm)
    others = tuple(index.shape[d] for d in perm[:-1])
    moved = shapes.slice_tensor(graph, moved, (0,) * values.rank, others + (values.shape[axis],))
    rows = math.prod(others)
    picked = gather(graph, graph.reshape(moved, (rows, values.shape[axis], 1)), gather_indices(graph, index, perm=perm, rows=rows))
    picked = graph.reshape(picked, others + (index.shape[axis],))
    inverse = [perm.index(d) for d in range(values.rank)]
    return graph.transpose(picked, inverse)
