"""SlicesAtLowestRank (Ethos-U85 only): a SLICE of rank above 4 at the lowest rank it takes."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class SlicesAtLowestRank(TosaPass):
    """SLICE of rank > 4 -> RESHAPE, the same SLICE without size-1 axes (and, while above rank
    4, with axes it takes whole merged into the one before), RESHAPE.

    Vela 5.2.0 for U85 reads a rank-5 SLICE straight into the batched MATMUL after it and
    splits that MATMUL per batch, but gives every part the first batch's IFM address: DeiT's
    query heads, sliced from the 3 x 1 x heads x tokens x 64 projection, all read head 0
    (77618 of 116427 attention scores wrong on the NPU model; the registers say so). At rank
    4 Vela addresses each part.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of SLICEs rewritten."""
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph_edits.ops_of(graph, ts.Op.SLICE):
            source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            start, size = (graph.constant_data(graph.tensors[name]) for name in op.inputs[1:3])
            if source.rank <= 4 or start is None or size is None:
                continue
            lowered = lowest_rank_slice(tuple(source.shape), [int(v) for v in start], [int(v) for v in size])
            if lowered is None:
                continue
            shape, begin, extent = lowered

            def build(source=source, result=result, shape=shape, begin=begin, extent=extent) -> None:
                flat = graph.reshape(source, shape)
                sliced = graph.emit(
                    ts.Op.SLICE, [flat, graph.shape_const(begin), graph.shape_const(extent)], extent, source.dtype
                )
                graph.reshape_into(sliced, result)

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements)


def lowest_rank_slice(
    shape: tuple[int, ...], start: list[int], size: list[int]
) -> tuple[list[int], list[int], list[int]] | None:
    """The same slice without the source's size-1 axes and, while that leaves more than 4, with
    the first axis taken whole merged into the axis before it: (source shape, start, size), or
    None when the rank stays as it is. (Merging further measured more Vela cycles.)"""
    axes = [[dim, first, count] for dim, first, count in zip(shape, start, size) if dim != 1] or [[1, 0, 1]]
    while len(axes) > 4:
        whole = next((i for i in range(1, len(axes)) if axes[i][1] == 0 and axes[i][2] == axes[i][0]), None)
        if whole is None:
            break
        dim = axes[whole][0]
        axes[whole - 1] = [axes[whole - 1][0] * dim, axes[whole - 1][1] * dim, axes[whole - 1][2] * dim]
        del axes[whole]
    if len(axes) >= len(shape):
        return None
    return [a[0] for a in axes], [a[1] for a in axes], [a[2] for a in axes]
