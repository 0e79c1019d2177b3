"""TransposesWithUnitAxesInPlace: a TRANSPOSE that moves size-1 axes -> one that leaves them where they are."""

from __future__ import annotations

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph


class TransposesWithUnitAxesInPlace(TosaPass):
    """TRANSPOSE(x, perm) whose perm moves size-1 axes -> RESHAPE, TRANSPOSE with the size-1
    axes first and unmoved, RESHAPE: the same elements in the same order.

    Vela picks the NPU's transpose from the perm as written: the 1x1x150x29 -> 1x29x1x150
    transpose that ends a conv1d network (NCHW output of a 1xW feature map) is NHWC -> NCHW,
    which Vela for U85 writes element by element after the convolution (wav2letter's last
    convolution: 4602050 cycles), while the same movement as 1x1x150x29 -> 1x1x29x150 swaps
    W and C (158691 cycles). On U55 the same rewrite measured 41703 -> 39783 cycles for
    torch's encoder layer (its heads' transposes) and 28709686 -> 28705336 for wav2letter.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of TRANSPOSEs rewritten."""
        return graph_edits.transposes_reshaped(graph, unit_axes_in_place)


def unit_axes_in_place(shape: tuple[int, ...], perm: list[int]) -> tuple[list[int], list[int]] | None:
    """The transpose with the size-1 axes leading and unmoved, at the same rank: (its input
    shape, its perm), or None when ``perm`` leaves the order of the axes but for size-1 ones
    (or moves no size-1 axis)."""
    kept = [axis for axis in range(len(shape)) if shape[axis] != 1]
    units = len(shape) - len(kept)
    if units == 0:
        return None
    position = {axis: index for index, axis in enumerate(kept)}
    moved = [units + position[axis] for axis in perm if shape[axis] != 1]
    sizes = [1] * units + [shape[axis] for axis in kept]
    settled = list(range(units)) + moved
    if settled == list(range(len(shape))) or (sizes == list(shape) and settled == perm):
        return None
    return sizes, settled
