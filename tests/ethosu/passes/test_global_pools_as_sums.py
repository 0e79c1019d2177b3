"""GlobalPoolsAsSums (python/etarm/ethosu/passes/): exact, and fewer Vela cycles."""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.global_pools_as_sums import GlobalPoolsAsSums
from etarm.testing.npu_rewrite_cases import I8, I32, assert_saves_cycles, family_key, rescale
from etarm.testing.tosa_graphs import graph_input


def global_pool(shape=(1, 25, 5, 32)):
    """The INT lowering of a global average pool: a depthwise convolution of unit weights, then RESCALE."""

    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        operands = [x, graph.const(np.ones((h, w, c, 1)), I8), graph.const(np.zeros(c), I32), graph.const([-3], I8), graph.const([0], I8)]
        acc = graph.emit(ts.Op.DEPTHWISE_CONV2D, operands, (n, 1, 1, c), I32, [0, 0, 0, 0], [h, w], [1, 1], False, I32)
        return rescale(graph, acc, 1 << 30, 37)

    return build


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_rewrite_is_exact_and_saves_cycles(tmp_path, target):
    assert_saves_cycles(global_pool(), GlobalPoolsAsSums(family_key(target)), target, tmp_path)
