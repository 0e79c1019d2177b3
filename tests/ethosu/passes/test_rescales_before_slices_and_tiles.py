"""RescalesBeforeSlicesAndTiles (python/etarm/ethosu/passes/): Vela 5.2.0 miscompiles a
widening RESCALE of a SLICE (and of a TILE of a slice); rescaling first is bit for bit what the
TOSA reference model computes, on the NPU model."""

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.passes.rescales_before_slices_and_tiles import RescalesBeforeSlicesAndTiles
from etarm.npu_model import run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I8, I32, built, rescale, widen
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa

TARGET = "ethos-u55-128"


def first_row(graph, tensor):
    shape = (1, 1, *tensor.shape[2:])
    return graph.emit(ts.Op.SLICE, [tensor, graph.shape_const((0, 0, 0, 0)), graph.shape_const(shape)], shape, I8)


def sliced(graph):
    """y[:, :1] of an int8 (1, 2, 8, 8) y, widened to int32."""
    return widen(graph, first_row(graph, graph_input(graph, (1, 2, 8, 8), I8, "y")), zero_point=3)


def tiled(graph):
    """x[:, :1] of an int8 (1, 4, 8, 8) x repeated 4 times along axis 1, widened to int32."""
    row = first_row(graph, graph_input(graph, (1, 4, 8, 8), I8))
    repeated = graph.emit(ts.Op.TILE, [row, graph.shape_const((1, 4, 1, 1))], (1, 4, 8, 8), I8)
    return widen(graph, repeated, zero_point=-5)


def _inputs(graph):
    rng = np.random.default_rng(6)
    return [rng.integers(-128, 128, graph.tensors[name].shape).astype(np.int8) for name in graph.inputs]


def _differences(graph, directory) -> int:
    directory.mkdir()
    inputs = _inputs(graph)
    (got,) = run_payload(graph_payload(graph, TARGET, str(directory)), TARGET, inputs)
    (want,) = run_tosa(graph.serialize(), inputs)
    return int(np.count_nonzero(got.reshape(-1) != np.asarray(want).reshape(-1)))


def test_rewrite_is_exact():
    for build, moved_past in ((sliced, [ts.Op.SLICE]), (tiled, [ts.Op.SLICE, ts.Op.TILE])):
        graph = built(build)
        before = run_tosa(graph.serialize(), _inputs(graph))
        assert RescalesBeforeSlicesAndTiles().run(graph) == 1
        assert [op.op for op in graph.ops] == [ts.Op.RESCALE, *moved_past]
        assert graph.tensors[graph.ops[0].outputs[0]].dtype == I32
        np.testing.assert_array_equal(run_tosa(graph.serialize(), _inputs(graph)), before)


def test_the_npu_model_agrees_after_the_rewrite(tmp_path):
    for build in (sliced, tiled):
        graph = built(build)
        assert _differences(graph, tmp_path / f"{build.__name__}_as_lowered") > 0  # the reason for the rewrite
        RescalesBeforeSlicesAndTiles().run(graph)
        assert _differences(graph, tmp_path / f"{build.__name__}_rewritten") == 0


def test_narrowing_rescales_and_shared_slices_stay():
    narrowing = built(lambda graph: rescale(graph, first_row(graph, graph_input(graph, (1, 2, 8, 8)))))
    assert RescalesBeforeSlicesAndTiles().run(narrowing) == 0
    assert RescalesBeforeSlicesAndTiles().run(built(_shared)) == 0


def _shared(graph):
    row = first_row(graph, graph_input(graph, (1, 2, 8, 8)))
    graph.mark_output(row)  # the slice is read beside the RESCALE
    return widen(graph, row)
