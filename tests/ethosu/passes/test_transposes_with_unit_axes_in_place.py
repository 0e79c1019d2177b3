"""TransposesWithUnitAxesInPlace (python/etarm/ethosu/passes/): exact, and fewer Vela cycles on Ethos-U85 and
no more on Ethos-U55."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.transposes_with_unit_axes_in_place import (
    TransposesWithUnitAxesInPlace,
    unit_axes_in_place,
)
from etarm.testing.npu_rewrite_cases import I8, assert_saves_cycles, conv


def conv1d_output_to_nchw(graph):
    """A pointwise convolution's 1x1x150x6 output (a 1xW feature map) back to torch's NCHW."""
    features = conv((1, 1, 150, 64), (1, 1), (1, 1), depthwise=False)(graph)
    return graph.emit(ts.Op.TRANSPOSE, [features], (1, 6, 1, 150), I8, [0, 3, 1, 2])


def test_rewrite_is_exact_and_saves_cycles_on_u85(tmp_path):
    assert_saves_cycles(conv1d_output_to_nchw, TransposesWithUnitAxesInPlace(), "ethos-u85-256", tmp_path)


def test_rewrite_costs_no_cycles_on_u55(tmp_path):
    assert_saves_cycles(
        conv1d_output_to_nchw, TransposesWithUnitAxesInPlace(), "ethos-u55-128", tmp_path, strictly=False
    )


@pytest.mark.parametrize(
    "shape, perm, settled",
    [
        ((1, 1, 150, 29), (0, 3, 1, 2), ([1, 1, 150, 29], [0, 1, 3, 2])),  # H (size 1) moved behind C
        ((1, 29, 1, 150), (0, 2, 3, 1), ([1, 1, 29, 150], [0, 1, 3, 2])),
        ((1, 8, 4, 4), (0, 2, 3, 1), None),  # only the leading unit axis, which stays
        ((2, 3, 4), (2, 0, 1), None),  # no size-1 axis
        ((1, 5, 1), (2, 1, 0), None),  # the size-5 axis alone: no movement at all
    ],
)
def test_unit_axes_in_place(shape, perm, settled):
    assert unit_axes_in_place(shape, list(perm)) == settled
