"""ExtremumCastsAsRescales (python/etarm/ethosu/passes/) against Vela for Ethos-U55."""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.extremum_casts_as_rescales import ExtremumCastsAsRescales
from etarm.ethosu.tosa_checks import check_graph
from etarm.testing.npu_rewrite_cases import I8, I16, I32, assert_lets_u55_run, built
from etarm.testing.tosa_graphs import graph_input


def extremum(op, shape_a, shape_b, dtype=I8):
    """The INT lowering of maximum/minimum with shared parameters: widen, compare, narrow by CAST."""

    def build(graph):
        a, b = graph_input(graph, shape_a, dtype, "a"), graph_input(graph, shape_b, dtype, "b")
        wide = [graph.emit(ts.Op.CAST, [t], t.shape, I32) for t in (a, b)]
        shape = tuple(max(p, q) for p, q in zip(shape_a, shape_b))
        result = graph.emit(op, wide, shape, I32, ts.NanPropagationMode.PROPAGATE)
        flat = graph.reshape(result, (int(np.prod(shape)),))  # a RESHAPE between, as after broadcasting
        return graph.emit(ts.Op.CAST, [flat], flat.shape, dtype)

    return build


CASES = {
    "maximum int8": extremum(ts.Op.MAXIMUM, (1, 4, 8, 8), (1, 4, 1, 8)),
    "minimum int16": extremum(ts.Op.MINIMUM, (2, 8, 8), (2, 8, 8), I16),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_is_exact_and_compiles_on_u55(tmp_path, case):
    assert_lets_u55_run(CASES[case], ExtremumCastsAsRescales(), tmp_path)


def test_casts_not_after_an_extremum_stay():
    """A CAST of int32 data of unknown range keeps wrapping (and stays a U55 violation)."""
    graph = built(lambda graph: graph.emit(ts.Op.CAST, [graph_input(graph, (1, 8), I32)], (1, 8), I8))
    assert ExtremumCastsAsRescales().run(graph) == 0
    assert [v.tosa_op for v in check_graph(graph, "u55")] == ["CAST"]
