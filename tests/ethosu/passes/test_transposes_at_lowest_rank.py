"""TransposesAtLowestRank (python/etarm/ethosu/passes/): exact, and fewer Vela cycles on Ethos-U85."""

import pytest
import tosa_serializer as ts

from etarm.ethosu.passes.transposes_at_lowest_rank import TransposesAtLowestRank, compact_transpose
from etarm.testing.npu_rewrite_cases import I8, assert_saves_cycles
from etarm.testing.tosa_graphs import graph_input


def heads_to_front(graph):
    """torch's multi-head attention moving q, k and v (axis 3) to the front of its projection."""
    x = graph_input(graph, (1, 10, 1, 3, 32))
    moved = graph.emit(ts.Op.TRANSPOSE, [x], (3, 10, 1, 1, 32), I8, [3, 1, 2, 0, 4])
    return graph.reshape(moved, (3, 10, 32))


def test_rewrite_is_exact_and_saves_cycles_on_u85(tmp_path):
    assert_saves_cycles(heads_to_front, TransposesAtLowestRank(), "ethos-u85-256", tmp_path)


@pytest.mark.parametrize(
    "shape, perm, compact",
    [
        ((1, 10, 1, 3, 32), (3, 1, 2, 0, 4), ([10, 3, 32], [1, 0, 2])),
        ((2, 3, 4, 5, 6), (0, 3, 4, 1, 2), ([2, 12, 30], [0, 2, 1])),  # (3, 4) and (5, 6) move together
        ((2, 3, 4, 5), (0, 2, 1, 3), None),  # nothing to drop or merge
    ],
)
def test_transposes_at_lowest_rank_drop_unit_axes_and_merge_runs(shape, perm, compact):
    assert compact_transpose(shape, list(perm)) == compact
