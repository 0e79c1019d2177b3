"""ReductionsWithoutTransposes (python/etarm/ethosu/passes/): exact, and fewer Vela cycles."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.reductions_without_transposes import ReductionsWithoutTransposes
from etarm.testing.npu_rewrite_cases import I32, assert_saves_cycles, built, family_key, rescale, widen
from etarm.testing.tosa_graphs import graph_input


def spatial_mean(perm=(0, 3, 1, 2), merged=(32, 64), axis=1):
    """mean over H, W of an NHWC tensor as the INT lowering leaves it: widen, TRANSPOSE to
    NCHW, RESHAPE, REDUCE_SUM, RESCALE."""

    def build(graph):
        x = graph_input(graph, (1, 8, 8, 32))
        moved = graph.emit(ts.Op.TRANSPOSE, [widen(graph, x, -7)], tuple((1, 8, 8, 32)[p] for p in perm), I32, list(perm))
        flat = graph.reshape(moved, merged)
        shape = list(merged)
        shape[axis] = 1
        return rescale(graph, graph.emit(ts.Op.REDUCE_SUM, [flat], tuple(shape), I32, axis), 1 << 30, 36)

    return build


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_rewrite_is_exact_and_saves_cycles(tmp_path, target):
    graph = assert_saves_cycles(spatial_mean(), ReductionsWithoutTransposes(family_key(target)), target, tmp_path)
    assert ts.Op.TRANSPOSE not in [op.op for op in graph.ops]


@pytest.mark.parametrize(
    "perm, merged, axis",
    [
        ((0, 3, 2, 1), (32, 64), 1),  # the kept channels would come out in another order: no
        ((0, 3, 1, 2), (256, 8), 1),  # sums over W only while C and H swap: no
    ],
)
def test_reductions_keep_transposes_that_matter(perm, merged, axis):
    graph = built(spatial_mean(perm, merged, axis))
    assert ReductionsWithoutTransposes("u85").run(graph) == 0
