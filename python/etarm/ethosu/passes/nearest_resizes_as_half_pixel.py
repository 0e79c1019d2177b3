"""NearestResizesAsHalfPixel (Ethos-U55/U65 only): RESIZE NEAREST in the encoding Vela compiles."""

from __future__ import annotations

import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph

_NEAREST_FACTORS = (2, 4, 8)


class NearestResizesAsHalfPixel(TosaPass):
    """RESIZE NEAREST that repeats each pixel 2, 4 or 8 times -> the half-pixel encoding.

    The same row indices have several RESIZE encodings; Vela compiles NEAREST for
    Ethos-U55/U65 only in the half-pixel one (n = 2k, d = 2, offset = 1 - k; measured),
    where etarm's lowering may pick another. Only resizes whose every output row (and
    column) reads input row o // k change, so results stay the same.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of resizes re-encoded."""
        count = 0
        for op in graph.ops:
            if op.op != ts.Op.RESIZE or op.attr_args[0] != ts.ResizeMode.NEAREST:
                continue
            scale, offset, border = (graph.constants.get(name) for name in op.inputs[1:4])
            if scale is None or offset is None or border is None:
                continue
            x, out = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            axes = [
                half_pixel_nearest(x.shape[1 + a], out.shape[1 + a], int(scale[2 * a]), int(scale[2 * a + 1]), int(offset[a]))
                for a in (0, 1)
            ]
            if None in axes:
                continue
            new = (
                [axes[0][0], axes[0][1], axes[1][0], axes[1][1]],
                [axes[0][2], axes[1][2]],
                [axes[0][3], axes[1][3]],
            )
            if [list(map(int, scale)), list(map(int, offset)), list(map(int, border))] == [list(v) for v in new]:
                continue
            op.inputs = [op.inputs[0], *(graph.shape_const(values).name for values in new)]
            count += 1
        return count


def _nearest_index(out_index: int, numerator: int, denominator: int, offset: int, size: int) -> int:
    """The row TOSA RESIZE NEAREST reads for output row ``out_index``."""
    index, remainder = divmod(out_index * denominator + offset, numerator)
    return min(max(index + 1 if 2 * remainder >= numerator else index, 0), size - 1)


def half_pixel_nearest(in_size: int, out_size: int, numerator: int, denominator: int, offset: int) -> tuple[int, int, int, int] | None:
    """(n, d, offset, border) of the half-pixel encoding of a nearest resize that copies each
    row ``k`` times (k = 2, 4, 8, or 1 for a size-1 axis), or None if it is not one."""
    if in_size == 1:
        return (2, 2, 0, 0) if out_size == 1 else None
    factor = out_size // in_size
    if factor not in _NEAREST_FACTORS or out_size != factor * in_size:
        return None
    if any(_nearest_index(o, numerator, denominator, offset, in_size) != o // factor for o in range(out_size)):
        return None
    n, d, off = 2 * factor, 2, 1 - factor
    return n, d, off, (out_size - 1) * d - (in_size - 1) * n + off
