"""MinimaAsComplementedMaxima (python/etarm/ethosu/passes/): Vela 5.2.0 miscompiles an int8
REDUCE_MIN whose result a RESHAPE drops the reduced axis of (every row repeats one value on
the NPU model); the rewritten graph is bit for bit what the TOSA reference model computes."""

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.passes.minima_as_complemented_maxima import MinimaAsComplementedMaxima
from etarm.npu_model import run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I8, built
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa

TARGET = "ethos-u55-128"
SHAPE = (1, 4, 8, 8)


def reduced(axis, reshaped=True):
    """REDUCE_MIN of an int8 (1, 4, 8, 8) input over ``axis``, then a RESHAPE dropping it."""

    def build(graph):
        x = graph_input(graph, SHAPE, I8)
        kept = tuple(1 if d == axis else n for d, n in enumerate(SHAPE))
        minima = graph.emit(ts.Op.REDUCE_MIN, [x], kept, I8, axis, ts.NanPropagationMode.PROPAGATE)
        return graph.reshape(minima, SHAPE[:axis] + SHAPE[axis + 1 :]) if reshaped else minima

    return build


def _inputs():
    random = np.random.default_rng(5).integers(-128, 128, SHAPE).astype(np.int8)
    return [random, np.full(SHAPE, -128, np.int8), np.full(SHAPE, 127, np.int8)]


def _differences(graph, directory) -> int:
    """How many values the NPU model computes differently from the TOSA reference model."""
    directory.mkdir()
    payload = graph_payload(graph, TARGET, str(directory))
    differ = 0
    for x in _inputs():
        (got,) = run_payload(payload, TARGET, [x])
        (want,) = run_tosa(graph.serialize(), [x])
        differ += int(np.count_nonzero(got.reshape(-1) != np.asarray(want).reshape(-1)))
    return differ


def test_rewrite_is_exact():
    for axis in (1, 2, 3):
        graph = built(reduced(axis))
        before = [run_tosa(graph.serialize(), [x]) for x in _inputs()]
        assert MinimaAsComplementedMaxima().run(graph) == 1
        for x, want in zip(_inputs(), before):
            np.testing.assert_array_equal(run_tosa(graph.serialize(), [x]), want)
            np.testing.assert_array_equal(np.asarray(want[0]), x.min(axis=axis))


def test_the_npu_model_agrees_after_the_rewrite(tmp_path):
    graph = built(reduced(3))
    assert _differences(graph, tmp_path / "as_lowered") > 0  # Vela's SUB -> REDUCE_MAX -> SUB: the reason
    assert MinimaAsComplementedMaxima().run(graph) == 1
    assert _differences(graph, tmp_path / "rewritten") == 0


def test_unreshaped_minima_stay():
    assert MinimaAsComplementedMaxima().run(built(reduced(3, reshaped=False))) == 0
