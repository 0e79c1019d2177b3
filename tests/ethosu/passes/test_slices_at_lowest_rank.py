"""SlicesAtLowestRank (python/etarm/ethosu/passes/): exact, and on Ethos-U85 the heads sliced from a
rank-5 projection reach the MATMUL after them (Vela 5.2.0 gave every head the first one's data)."""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.slices_at_lowest_rank import SlicesAtLowestRank, lowest_rank_slice
from etarm.npu_model import run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I8, I32, assert_exact, built
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa

TARGET = "ethos-u85-256"
HEADS, TOKENS, DEPTH = 2, 20, 16


def attention_scores(graph):
    """q k^T per head, q and k sliced from a qkv projection laid out 3 x 1 x heads x tokens x depth
    (the layout DeiT's lowering reaches through torch's reshape and permute)."""
    x = graph_input(graph, (TOKENS, 3 * HEADS * DEPTH), I8, "x")
    heads = graph.transpose(graph.reshape(x, (TOKENS, 3 * HEADS, DEPTH)), (1, 0, 2))
    qkv = graph.reshape(heads, (3, 1, HEADS, TOKENS, DEPTH))

    def part(index):
        size = (1, 1, HEADS, TOKENS, DEPTH)
        return graph.emit(ts.Op.SLICE, [qkv, graph.shape_const([index, 0, 0, 0, 0]), graph.shape_const(size)], size, I8)

    queries, keys = graph.reshape(part(0), (HEADS, TOKENS, DEPTH)), graph.reshape(part(1), (HEADS, TOKENS, DEPTH))
    zero = graph.const([0], I8)
    keys_t = graph.transpose(keys, (0, 2, 1))
    return graph.emit(ts.Op.MATMUL, [queries, keys_t, zero, zero], (HEADS, TOKENS, TOKENS), I32)


def _npu_and_reference(graph, directory):
    directory.mkdir()
    x = np.random.default_rng(1).integers(-128, 128, (TOKENS, 3 * HEADS * DEPTH)).astype(np.int8)
    (got,) = run_payload(graph_payload(graph, TARGET, str(directory)), TARGET, [x])
    (want,) = run_tosa(graph.serialize(), [x])
    return got, np.asarray(want).reshape(got.shape)


def test_every_head_reaches_the_matmul_after_the_rewrite(tmp_path):
    graph = built(attention_scores)
    got, want = _npu_and_reference(graph, tmp_path / "as_lowered")
    assert np.count_nonzero(got != want) > 0  # Vela reads head 0 for every head: the reason for the rewrite
    np.testing.assert_array_equal(got[0], want[0])
    assert_exact(graph, SlicesAtLowestRank(), rewrites=2)
    got, want = _npu_and_reference(graph, tmp_path / "rewritten")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "shape, start, size, lowered",
    [
        ((3, 1, 3, 197, 64), [1, 0, 0, 0, 0], [1, 1, 3, 197, 64], ([3, 3, 197, 64], [1, 0, 0, 0], [1, 3, 197, 64])),
        # no size-1 axis: the first axis taken whole merges into the one before it, down to rank 4
        ((2, 3, 4, 5, 6), [1, 0, 1, 0, 0], [1, 3, 2, 5, 6], ([6, 4, 5, 6], [3, 1, 0, 0], [3, 2, 5, 6])),
        ((2, 3, 4, 5, 6), [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], None),  # nothing to drop or merge
    ],
)
def test_lowest_rank_slice(shape, start, size, lowered):
    assert lowest_rank_slice(shape, start, size) == lowered
