"""TransposesAtLowestRank (Ethos-U85 only): a TRANSPOSE of rank above 4 at the lowest rank it takes."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class TransposesAtLowestRank(TosaPass):
    """TRANSPOSE of rank > 4 -> the same TRANSPOSE at the lowest rank, between two RESHAPEs.

    The TRANSPOSE in between drops the size-1 axes and merges the axes that move
    together. Vela for U85 splits a transpose of rank 5 or more into several: torch's
    multi-head attention moving q, k and v to the front of its 1x10x1x3x32 projection
    took 11937 cycles, as one 10x3x32 -> 3x10x32 814. Rank-4 ones stay: Vela runs them
    whole, and lowering their rank measured slower (cnn_bn: 10050 -> 21818). On U55/U65
    the same rewrite alone measured slower (2280 -> 2520 cycles).
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of TRANSPOSEs rewritten."""
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph.ops:
            if op.op != ts.Op.TRANSPOSE or graph.tensors[op.inputs[0]].rank <= 4:
                continue
            source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            compact = compact_transpose(tuple(source.shape), list(op.attr_args[0]))
            if compact is None:
                continue
            sizes, perm = compact

            def build(source=source, result=result, sizes=sizes, perm=perm) -> None:
                moved = graph.transpose(graph.reshape(source, sizes), perm)
                graph.reshape_into(moved, result)

            replacements[id(op)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements)


def compact_transpose(shape: tuple[int, ...], perm: list[int]) -> tuple[list[int], list[int]] | None:
    """The same TRANSPOSE without size-1 axes and with the axes that move together merged:
    (its input shape, its perm), or None when that leaves the rank as it is."""
    kept = [axis for axis in range(len(shape)) if shape[axis] != 1]
    position = {axis: index for index, axis in enumerate(kept)}
    runs: list[list[int]] = []  # in output order, each a run of consecutive kept input axes
    for axis in perm:
        if shape[axis] == 1:
            continue
        if runs and position[axis] == position[runs[-1][-1]] + 1:
            runs[-1].append(axis)
        else:
            runs.append([axis])
    if len(runs) >= len(shape):
        return None
    by_input = sorted(range(len(runs)), key=lambda run: runs[run][0])
    sizes = [int(np.prod([shape[axis] for axis in runs[run]])) for run in by_input]
    return sizes, [by_input.index(run) for run in range(len(runs))]
