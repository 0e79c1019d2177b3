"""NearestResizesAsHalfPixel (python/etarm/ethosu/passes/) against Vela for Ethos-U55."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.nearest_resizes_as_half_pixel import NearestResizesAsHalfPixel, half_pixel_nearest
from etarm.testing.npu_rewrite_cases import I8, assert_lets_u55_run, built
from etarm.testing.tosa_graphs import graph_input


def nearest(shape, out_hw, scale, offset, border):
    def build(graph):
        x = graph_input(graph, shape)
        params = [graph.shape_const(scale), graph.shape_const(offset), graph.shape_const(border)]
        return graph.emit(ts.Op.RESIZE, [x, *params], (shape[0], *out_hw, shape[3]), I8, ts.ResizeMode.NEAREST)

    return build


CASES = {
    "nearest 2x (etarm's encoding)": nearest((1, 8, 6, 4), (16, 12), [2, 1, 2, 1], [-1, -1], [0, 0]),
    "nearest 4x": nearest((1, 4, 5, 4), (16, 20), [4, 1, 4, 1], [-2, -2], [1, 1]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_is_exact_and_compiles_on_u55(tmp_path, case):
    assert_lets_u55_run(CASES[case], NearestResizesAsHalfPixel(), tmp_path)


def test_half_pixel_resizes_stay():
    graph = built(nearest((1, 8, 6, 4), (16, 12), [4, 2, 4, 2], [-1, -1], [1, 1]))
    assert NearestResizesAsHalfPixel().run(graph) == 0


@pytest.mark.parametrize(
    "in_size, out_size, params, expected",
    [
        (8, 16, (2, 1, -1), (4, 2, -1, 1)),  # etarm's nearest 2x
        (8, 16, (4, 2, -1), (4, 2, -1, 1)),  # already half-pixel
        (3, 24, (8, 1, -4), (16, 2, -7, 7)),  # 8x
        (8, 24, (6, 2, -2), None),  # 3x: Vela upscales by powers of two only
        (8, 16, (2, 1, 0), None),  # rounds half up to the next row: not a repeat
        (1, 1, (1, 1, 0), (2, 2, 0, 0)),
    ],
)
def test_half_pixel_nearest(in_size, out_size, params, expected):
    assert half_pixel_nearest(in_size, out_size, *params) == expected
