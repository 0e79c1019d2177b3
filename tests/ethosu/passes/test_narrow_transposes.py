"""NarrowTransposes (python/etarm/ethosu/passes/): exact, and fewer Vela cycles."""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.narrow_transposes import NarrowTransposes
from etarm.testing.npu_rewrite_cases import I8, I32, assert_saves_cycles, rescale, widen
from etarm.testing.tosa_graphs import graph_input


def residual_add(graph):
    """x (NCHW) + a channels-last convolution of it: the convolution's result widened, then
    TRANSPOSEd to NCHW, then ADD (as the layout passes leave a residual block)."""
    x = graph_input(graph, (1, 16, 12, 12), name="x")
    nhwc = graph.emit(ts.Op.TRANSPOSE, [x], (1, 12, 12, 16), I8, [0, 2, 3, 1])
    weights = graph.const(np.random.default_rng(1).integers(-3, 4, (16, 1, 1, 16)), I8)
    operands = [nhwc, weights, graph.const(np.zeros(16), I32), graph.const([5], I8), graph.const([0], I8)]
    acc = graph.emit(ts.Op.CONV2D, operands, (1, 12, 12, 16), I32, [0, 0, 0, 0], [1, 1], [1, 1], False, I32)
    branch = rescale(graph, acc, 1 << 30, 36)
    # the operand scales inverted_residual's add gets (2**19 and ~2**16.98)
    wide = graph.emit(ts.Op.TRANSPOSE, [widen(graph, branch, 0, 2113952428, 14)], (1, 16, 12, 12), I32, [0, 3, 1, 2])
    total = graph.emit(ts.Op.ADD, [widen(graph, x, 5, 1 << 30, 11), wide], (1, 16, 12, 12), I32)
    return rescale(graph, total, 2107965936, 50)


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_rewrite_is_exact_and_saves_cycles(tmp_path, target):
    assert_saves_cycles(residual_add, NarrowTransposes(), target, tmp_path)
