"""TrivialTransposesAsReshapes (python/etarm/ethosu/passes/): exact, and no more Vela cycles."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.trivial_transposes_as_reshapes import TrivialTransposesAsReshapes
from etarm.testing.npu_rewrite_cases import I8, assert_saves_cycles, built
from etarm.testing.tosa_graphs import graph_input


def pooled_to_nchw(graph):
    x = graph_input(graph, (1, 1, 1, 32))
    return graph.emit(ts.Op.TRANSPOSE, [x], (1, 32, 1, 1), I8, [0, 3, 1, 2])


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_rewrite_is_exact_and_costs_no_more(tmp_path, target):
    graph = assert_saves_cycles(pooled_to_nchw, TrivialTransposesAsReshapes(), target, tmp_path, strictly=False)
    assert [op.op.name for op in graph.ops] == ["RESHAPE"]


def test_transposes_that_move_data_stay():
    graph = built(lambda graph: graph.emit(ts.Op.TRANSPOSE, [graph_input(graph, (1, 2, 1, 32))], (1, 32, 2, 1), I8, [0, 3, 1, 2]))
    assert TrivialTransposesAsReshapes().run(graph) == 0
