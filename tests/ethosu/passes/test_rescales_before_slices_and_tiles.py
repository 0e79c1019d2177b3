"""RescalesBeforeSlicesAndTiles (python/etarm/ethosu/passes/): Vela 5.2.0 miscompiles a
widening RESCALE of a SLICE (and of a TILE of a slice, of a reshaped slice, of a slice several
RESCALEs read); rescaling first is bit for bit what the TOSA reference model computes, on the
NPU model."""

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.passes.rescales_before_slices_and_tiles import RescalesBeforeSlicesAndTiles
from etarm.npu_model import NpuModelError, run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I8, I32, built, rescale, widen
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir import graph_edits

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


def frames(graph, steps=(5,)):
    """The gru network's step inputs: a frame of an int32 (1, 8, 48) projection per step,
    reshaped to (1, 48) and rescaled three ways (the three gates); on the NPU model each
    RESCALE wrote all 8 frames, past the end of the scratch area."""
    projection = widen(graph, graph_input(graph, (1, 8, 48), I8, "y"), zero_point=3)
    total = None
    for step in steps:
        begin, size = graph.shape_const((0, step, 0)), graph.shape_const((1, 1, 48))
        frame = graph.reshape(graph.emit(ts.Op.SLICE, [projection, begin, size], (1, 1, 48), I32), (1, 48))
        for k in range(3):
            gate = _rescale32(graph, frame, (1 << 30) + 12345 * k)
            total = gate if total is None else graph.emit(ts.Op.ADD, [total, gate], (1, 48), I32)
    return total


def gates(graph):
    """The gru network's hidden-state gates: thirds of a reshaped int8 (1, 1, 1, 384) projection,
    each widened for an addition, the first two alike. Rescaled first, a rank-2 RESCALE result
    that several SLICEs read made Vela write each slice's copy of the RESCALE whole (384 values
    into the slice's 128), over what the scratch area held next."""
    rows = graph.reshape(graph_input(graph, (1, 1, 1, 384), I8, "z"), (1, 384))
    hidden = widen(graph, graph_input(graph, (1, 128), I8, "h"), zero_point=1)
    total = None
    for k, multiplier in enumerate((1 << 30, 1 << 30, (1 << 30) + 1000)):
        third = graph.emit(
            ts.Op.SLICE, [rows, graph.shape_const((0, 128 * k)), graph.shape_const((1, 128))], (1, 128), I8
        )
        gate = graph.emit(ts.Op.ADD, [widen(graph, third, zero_point=3, multiplier=multiplier), hidden], (1, 128), I32)
        total = gate if total is None else graph.emit(ts.Op.ADD, [total, gate], (1, 128), I32)
    return total


def _rescale32(graph, tensor, multiplier):
    operands = [
        tensor,
        graph.const([multiplier], I32),
        graph.const([31], I8),
        graph.const([0], I32),
        graph.const([0], I32),
    ]
    return graph.emit(
        ts.Op.RESCALE, operands, tensor.shape, I32, True, ts.RoundingMode.DOUBLE_ROUND, False, False, False
    )


def _inputs(graph):
    rng = np.random.default_rng(6)
    return [rng.integers(-128, 128, graph.tensors[name].shape).astype(np.int8) for name in graph.inputs]


def _differences(graph, directory) -> int | None:
    """How many outputs of Vela's stream differ on the NPU model; None when the model refuses
    the stream (an OFM written past the end of its region)."""
    directory.mkdir()
    inputs = _inputs(graph)
    try:
        (got,) = run_payload(graph_payload(graph, TARGET, str(directory)), TARGET, inputs)
    except NpuModelError:
        return None
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


def _views_read_once(graph) -> bool:
    """No RESCALE or RESHAPE result of rank below 4 is read by more than one SLICE."""
    readers = graph_edits.consumers(graph)
    views = [op.outputs[0] for op in graph.ops if op.op in (ts.Op.RESCALE, ts.Op.RESHAPE)]
    return all(
        sum(reader.op == ts.Op.SLICE for reader in readers.get(name, [])) <= 1
        for name in views
        if graph.tensors[name].rank < 4
    )


def test_reshaped_slices_read_three_times_move_and_equal_rescales_share():
    graph = built(frames)
    before = run_tosa(graph.serialize(), _inputs(graph))
    assert RescalesBeforeSlicesAndTiles().run(graph) == 3
    assert sum(op.op == ts.Op.RESCALE for op in graph.ops) == 1 + 3
    assert _views_read_once(graph)
    np.testing.assert_array_equal(run_tosa(graph.serialize(), _inputs(graph)), before)
    two_steps = built(lambda g: frames(g, steps=(0, 5)))
    before = run_tosa(two_steps.serialize(), _inputs(two_steps))
    assert RescalesBeforeSlicesAndTiles().run(two_steps) == 6
    # The second step's RESCALEs equal the first's: the projection is rescaled 3 times, not 6.
    assert sum(op.op == ts.Op.RESCALE for op in two_steps.ops) == 1 + 3
    assert _views_read_once(two_steps)
    np.testing.assert_array_equal(run_tosa(two_steps.serialize(), _inputs(two_steps)), before)


def test_the_npu_model_agrees_after_the_rewrite(tmp_path):
    for build in (sliced, tiled, frames, gates):
        graph = built(build)
        before = _differences(graph, tmp_path / f"{build.__name__}_as_lowered")
        assert before is None or before > 0  # the reason for the rewrite
        RescalesBeforeSlicesAndTiles().run(graph)
        assert _differences(graph, tmp_path / f"{build.__name__}_rewritten") == 0


def test_equal_rescales_share_a_rank_4_result_and_each_reads_it_through_its_own_reshape():
    graph = built(gates)
    assert RescalesBeforeSlicesAndTiles().run(graph) == 3
    assert sum(op.op == ts.Op.RESCALE for op in graph.ops) == 1 + 2  # the hidden state's, A and B
    assert _views_read_once(graph)


def test_narrowing_rescales_stay_and_shared_slices_are_kept_for_their_other_readers():
    narrowing = built(lambda graph: rescale(graph, first_row(graph, graph_input(graph, (1, 2, 8, 8)))))
    assert RescalesBeforeSlicesAndTiles().run(narrowing) == 0
    shared = built(_shared)
    assert RescalesBeforeSlicesAndTiles().run(shared) == 1
    assert [op.op for op in shared.ops] == [ts.Op.SLICE, ts.Op.RESCALE, ts.Op.SLICE]


def _shared(graph):
    row = first_row(graph, graph_input(graph, (1, 2, 8, 8)))
    graph.mark_output(row)  # the slice is read beside the RESCALE
    return widen(graph, row)
