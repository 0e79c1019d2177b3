"""TransposesAtLowestRank (Ethos-U85 only): a TRANSPOSE of rank above 4 at the lowest rank it takes."""

from __future__ import annotations

import numpy as np

from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph


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
        return graph_edits.transposes_reshaped(
            graph, lambda shape, perm: compact_transpose(shape, perm) if len(shape) > 4 else None
        )


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
