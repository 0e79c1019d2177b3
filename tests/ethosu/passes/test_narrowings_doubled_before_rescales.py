"""NarrowingsDoubledBeforeRescales (python/etarm/ethosu/passes/): exact, and on Ethos-U85 an int16
average pool (window sums narrowed to int32 by 1, then divided) comes out right (Vela 5.2.0 kept
15 bits of the divisor's 32-bit multiplier in the convolution's scale records)."""

import numpy as np
import tosa_serializer as ts

from etarm.ethosu.passes.narrowings_doubled_before_rescales import NarrowingsDoubledBeforeRescales
from etarm.npu_model import run_payload
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.npu_rewrite_cases import I8, I16, I32, assert_exact, built, sample_inputs
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa

TARGET = "ethos-u85-256"
I48 = ts.DType.INT48
SHAPE = (1, 1, 9, 4)  # [N, H, W, C]: avg_pool1d over W, window 3, stride 2, padding 1


def rescale(graph, tensor, multiplier, shift, dtype, scale32=True):
    inputs = [
        tensor,
        graph.const([multiplier], I32 if scale32 else I16),
        graph.const([shift], I8),
        graph.const([0], tensor.dtype),
        graph.const([0], dtype),
    ]
    return graph.emit(
        ts.Op.RESCALE, inputs, tensor.shape, dtype, scale32, ts.RoundingMode.SINGLE_ROUND, False, False, False
    )


def window_sums(graph, weights=None):
    """int48 window sums of an int16 input, as the INT lowering of avg_pool1d writes them."""
    x = graph_input(graph, SHAPE, I16, "x")
    n, _, w, c = SHAPE
    weights = np.ones((1, 3, c, 1)) if weights is None else weights
    operands = [x, graph.const(weights, I8), graph.const(np.zeros(c), I48), graph.const([0], I16), graph.const([0], I8)]
    out = (n, 1, (w + 2 - 3) // 2 + 1, c)
    return graph.emit(ts.Op.DEPTHWISE_CONV2D, operands, out, I48, [0, 0, 1, 1], [1, 2], [1, 1], False, I48)


def average_pool(graph):
    """Window sums narrowed to int32 by 1 (multiplier 2**14, shift 14), then divided by 3."""
    narrowed = rescale(graph, window_sums(graph), 1 << 14, 14, I32, scale32=False)
    return rescale(graph, narrowed, 0x55555555, 32, I16)


def _npu_and_reference(graph, directory):
    directory.mkdir()
    inputs = sample_inputs(graph)
    (got,) = run_payload(graph_payload(graph, TARGET, str(directory)), TARGET, inputs)
    (want,) = run_tosa(graph.serialize(), inputs)
    return got, np.asarray(want).reshape(got.shape)


def test_int16_average_pool_is_exact_on_the_npu_after_the_rewrite(tmp_path):
    graph = built(average_pool)
    got, want = _npu_and_reference(graph, tmp_path / "as_lowered")
    assert np.abs(want).max() > 1000 and np.abs(got).max() <= 1  # Vela's 15-bit divisor: the reason
    assert_exact(graph, NarrowingsDoubledBeforeRescales())
    got, want = _npu_and_reference(graph, tmp_path / "rewritten")
    np.testing.assert_array_equal(got, want)


def test_the_narrowing_stays_when_its_result_has_other_readers():
    def build(graph):
        narrowed = rescale(graph, window_sums(graph), 1 << 14, 14, I32, scale32=False)
        divided = rescale(graph, narrowed, 0x55555555, 32, I16)
        return graph.emit(ts.Op.ADD, [rescale(graph, divided, 1 << 30, 30, I32), narrowed], narrowed.shape, I32)

    assert NarrowingsDoubledBeforeRescales().run(built(build)) == 0


def test_sums_that_could_pass_2_to_the_30_when_doubled_stay():
    """A 1 x 300 window of weights 127 over int16 values reaches 300 * 127 * 2**15 ~ 2**30.2 and
    is left alone; unit weights over 3 values are rewritten."""
    wide = (1, 1, 300, 4)

    def build(graph):
        x = graph_input(graph, wide, I16, "x")
        operands = [
            x, graph.const(np.full((1, 300, 4, 1), 127), I8), graph.const(np.zeros(4), I48),
            graph.const([0], I16), graph.const([0], I8),
        ]  # fmt: skip
        sums = graph.emit(ts.Op.DEPTHWISE_CONV2D, operands, (1, 1, 1, 4), I48, [0, 0, 0, 0], [1, 1], [1, 1], False, I48)
        return rescale(graph, rescale(graph, sums, 1 << 14, 14, I32, scale32=False), 0x55555555, 40, I16)

    assert NarrowingsDoubledBeforeRescales().run(built(build)) == 0
    assert NarrowingsDoubledBeforeRescales().run(built(average_pool)) == 1
