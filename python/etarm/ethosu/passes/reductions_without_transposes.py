"""ReductionsWithoutTransposes (both families; the family sets how long a sum may be on Ethos-U85)."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp

# Ethos-U85 sums over non-channel axes slowly when they are long (Vela transposes them
# itself), measured: over 8x8 or 16x16 (or 7x7x256) summing in place beats transposing
# first, over 32x32 and more it loses (64x64x8: 40799 -> 128444 cycles). U55/U65 win at
# every size measured (8x8 to 100x100).
U85_MAX_SPATIAL_SUM = 256


class ReductionsWithoutTransposes(TosaPass):
    """TRANSPOSE -> RESHAPE -> REDUCE_SUM -> the same sum over a RESHAPE of the source.

    The layout passes hand a reduction over the spatial axes of a channels-last tensor
    its channels-first view (a mean over dims 2, 3 of NCHW), so a TRANSPOSE precedes the
    sum. A sum does not care in which order it adds, and its result keeps the other
    axes in their order, so when the summed axes sit next to each other in the source
    and the kept ones keep their order, the TRANSPOSE (4 NPU operations on int32) goes.
    """

    stage = Stage.BACKEND

    def __init__(self, family: str):
        """``family``: the Vela family key (``u55``, ``u65``, ``u85``)."""
        self.family = family

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of TRANSPOSEs removed."""
        consumers, producers = graph_edits.consumers(graph), graph_edits.producers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph_edits.ops_of(graph, ts.Op.REDUCE_SUM):
            reshape = producers.get(op.inputs[0])
            transpose = producers.get(reshape.inputs[0]) if reshape is not None and reshape.op == ts.Op.RESHAPE else None
            if transpose is None or transpose.op != ts.Op.TRANSPOSE:
                continue
            if graph_edits.single_consumer(consumers, graph, reshape.outputs[0]) is not op:
                continue
            if graph_edits.single_consumer(consumers, graph, transpose.outputs[0]) is not reshape:
                continue
            source, moved = graph.tensors[transpose.inputs[0]], graph.tensors[transpose.outputs[0]]
            perm = list(transpose.attr_args[0])
            groups = _merged_groups(moved.shape, graph.tensors[reshape.outputs[0]].shape)
            if groups is None:
                continue
            summed = [perm[a] for a in groups[op.attr_args[0]] if moved.shape[a] != 1]
            kept = [perm[a] for g, group in enumerate(groups) if g != op.attr_args[0] for a in group if moved.shape[a] != 1]
            if not summed or summed != list(range(min(summed), max(summed) + 1)) or kept != sorted(kept):
                continue
            before = int(np.prod(source.shape[: min(summed)], dtype=np.int64))
            total = int(np.prod(source.shape[min(summed) : max(summed) + 1], dtype=np.int64))
            after = int(np.prod(source.shape[max(summed) + 1 :], dtype=np.int64))
            if not npu_rules.is_u55_class(self.family) and after > 1 and total > U85_MAX_SPATIAL_SUM:
                continue
            result = graph.tensors[op.outputs[0]]

            def build(source=source, shape=(before, total, after), result=result) -> None:
                grouped = graph.reshape(source, shape)
                total_ = graph.emit(ts.Op.REDUCE_SUM, [grouped], (shape[0], 1, shape[2]), result.dtype, 1)
                graph.reshape_into(total_, result)

            replacements[id(transpose)] = []
            replacements[id(reshape)] = []
            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements) // 3


def _merged_groups(shape: tuple[int, ...], merged: tuple[int, ...]) -> list[range] | None:
    """For a RESHAPE of ``shape`` into ``merged`` that only merges neighbouring axes: which
    axes of ``shape`` each axis of ``merged`` holds (size-1 axes go anywhere), else None."""
    groups, axis = [], 0
    for size in merged:
        start, product = axis, 1
        while axis < len(shape) and (product < size or (shape[axis] == 1 and product == size and size != 1)):
            product *= shape[axis]
            axis += 1
        if product != size:
            return None
        groups.append(range(start, axis))
    while axis < len(shape) and shape[axis] == 1:
        groups[-1] = range(groups[-1].start, axis + 1) if groups else range(0, 0)
        axis += 1
    return groups if axis == len(shape) else None
