"""FloorShiftsAsRoundedShifts (python/etarm/ethosu/passes/): Vela 5.2.0 compiles a flooring
ARITHMETIC_RIGHT_SHIFT for Ethos-U55 into an SHR that rounds; the rewritten graph floors on the
NPU model, bit for bit what the TOSA reference model computes."""

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.passes.floor_shifts_as_rounded_shifts import FloorShiftsAsRoundedShifts
from etarm.lowering import fixed_point
from etarm.npu_model import run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I32, built
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa

TARGET = "ethos-u55-128"


def floor_shift(amount):
    def build(graph):
        return fixed_point.shift_right(graph, graph_input(graph, (1, 8, 16), I32), amount, rounding=False)

    return build


def _npu_and_reference(graph, directory) -> tuple[np.ndarray, np.ndarray]:
    directory.mkdir()
    x = np.random.default_rng(3).integers(-(2**30), 2**30, size=(1, 8, 16)).astype(np.int32)
    (got,) = run_payload(graph_payload(graph, TARGET, str(directory)), TARGET, [x])
    (want,) = run_tosa(graph.serialize(), [x])
    return got, np.asarray(want).reshape(got.shape)


def test_rewrite_is_exact():
    per_element = np.arange(16, dtype=np.int32).reshape(1, 1, 16) % 5  # some zero shifts among them
    for amount in (3, 31, per_element):
        graph = built(floor_shift(amount))
        x = np.random.default_rng(4).integers(-(2**30), 2**30, size=(1, 8, 16)).astype(np.int32)
        before = run_tosa(graph.serialize(), [x])
        assert FloorShiftsAsRoundedShifts().run(graph) == 1
        np.testing.assert_array_equal(run_tosa(graph.serialize(), [x]), before)


def test_the_npu_floors_after_the_rewrite(tmp_path):
    graph = built(floor_shift(5))
    got, want = _npu_and_reference(graph, tmp_path / "as_lowered")
    assert np.count_nonzero(got != want) > 0  # Vela's SHR rounds to nearest: the reason for the rewrite
    assert FloorShiftsAsRoundedShifts().run(graph) == 1
    got, want = _npu_and_reference(graph, tmp_path / "rewritten")
    np.testing.assert_array_equal(got, want)


def test_rounding_and_computed_shifts_stay():
    rounding = built(lambda graph: fixed_point.shift_right(graph, graph_input(graph, (1, 8), I32), 4))
    assert FloorShiftsAsRoundedShifts().run(rounding) == 0

    def computed(graph):
        x, amount = graph_input(graph, (1, 8), I32, "x"), graph_input(graph, (1, 8), I32, "amount")
        return graph.binary(ts.Op.ARITHMETIC_RIGHT_SHIFT, x, amount, I32, False)

    assert FloorShiftsAsRoundedShifts().run(built(computed)) == 0
