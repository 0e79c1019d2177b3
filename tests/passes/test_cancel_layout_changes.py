"""CancelLayoutChanges (passes/cancel_layout_changes.py) on hand-built TOSA graphs, run on the TOSA reference model."""

import numpy as np
import tosa_serializer as ts

from etarm.passes.cancel_layout_changes import CancelLayoutChanges
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.graph import TosaGraph
from etarm.tosa_ir.specification import TosaSpecification

FP32 = ts.DType.FP32
TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def new_graph(*shapes):
    graph = TosaGraph(TosaSpecification.create_from_string("TOSA-1.0+FP"))
    inputs = []
    for shape in shapes:
        tensor = graph.temp(shape, FP32, stem="input")
        graph.inputs.append(tensor.name)
        inputs.append(tensor)
    return graph, inputs


def transpose(graph, tensor, perm):
    return graph.emit(ts.Op.TRANSPOSE, [tensor], [tensor.shape[p] for p in perm], tensor.dtype, perm)


def clamp(graph, tensor, low=-0.5, high=0.5):
    return graph.emit(ts.Op.CLAMP, [tensor], tensor.shape, tensor.dtype, list(np.float32(low).tobytes()), list(np.float32(high).tobytes()), ts.NanPropagationMode.PROPAGATE)


def add(graph, a, b):
    return graph.emit(ts.Op.ADD, [a, b], tuple(max(x, y) for x, y in zip(a.shape, b.shape)), a.dtype)


def run_before_and_after(graph, outputs, arrays):
    """Cleans ``graph`` up; returns (results before, results after) on the reference model."""
    for tensor in outputs:
        graph.mark_output(tensor)
    before = run_tosa(graph.serialize(), arrays)
    CancelLayoutChanges().run(graph)
    after = run_tosa(graph.serialize(), arrays)
    for old, new in zip(before, after):
        np.testing.assert_array_equal(old, new)
    return graph.emitted_ops()


def test_transposes_around_elementwise_ops_cancel():
    graph, (x,) = new_graph((2, 3, 4, 5))
    y = transpose(graph, x, TO_NHWC)
    y = clamp(graph, y)
    y = add(graph, y, graph.const(np.arange(3, dtype=np.float32), FP32, shape=(1, 1, 1, 3)))
    y = transpose(graph, y, TO_NCHW)
    ops = run_before_and_after(graph, [y], [np.random.default_rng(0).standard_normal((2, 3, 4, 5), dtype=np.float32)])
    assert ops == ["CLAMP", "ADD"]


def test_transpose_with_other_readers_is_kept():
    graph, (x,) = new_graph((1, 2, 3, 4))
    nhwc = transpose(graph, x, TO_NHWC)
    back = transpose(graph, nhwc, TO_NCHW)
    ops = run_before_and_after(graph, [nhwc, clamp(graph, back)], [np.ones((1, 2, 3, 4), np.float32)])
    assert ops == ["TRANSPOSE", "CLAMP"]


def test_transposes_of_constants_fold_and_unused_ops_drop():
    graph, (x,) = new_graph((2, 3))
    constant = graph.const(np.arange(6, dtype=np.float32).reshape(3, 2), FP32)
    folded = transpose(graph, constant, [1, 0])
    clamp(graph, x)  # nobody reads it
    ops = run_before_and_after(graph, [add(graph, x, folded)], [np.ones((2, 3), np.float32)])
    assert ops == ["ADD"]


def test_reshape_chain_collapses():
    graph, (x,) = new_graph((2, 3, 4))
    y = graph.reshape(x, (2, 3, 1, 4))
    y = transpose(graph, y, TO_NHWC)
    y = transpose(graph, y, TO_NCHW)
    y = graph.reshape(y, (2, 3, 4))
    ops = run_before_and_after(graph, [clamp(graph, y)], [np.ones((2, 3, 4), np.float32)])
    assert ops == ["CLAMP"]


def test_binary_op_with_an_untransposed_input_is_left_alone():
    graph, (a, b) = new_graph((1, 2, 3, 4), (1, 3, 4, 2))
    ta = transpose(graph, a, TO_NHWC)
    ops = run_before_and_after(graph, [add(graph, ta, b)], [np.ones((1, 2, 3, 4), np.float32), np.ones((1, 3, 4, 2), np.float32)])
    assert ops == ["TRANSPOSE", "ADD"]


def test_concat_of_transposed_inputs_concatenates_before_the_transpose():
    graph, (a, b) = new_graph((1, 2, 3, 4), (1, 5, 3, 4))
    ta, tb = transpose(graph, a, TO_NHWC), transpose(graph, b, TO_NHWC)
    cat = graph.emit(ts.Op.CONCAT, [ta, tb], (1, 3, 4, 7), FP32, 3)
    back = transpose(graph, cat, TO_NCHW)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((1, 2, 3, 4), dtype=np.float32), rng.standard_normal((1, 5, 3, 4), dtype=np.float32)]
    ops = run_before_and_after(graph, [clamp(graph, back)], arrays)
    assert ops == ["CONCAT", "CLAMP"]


def sigmoid(graph, tensor):
    return graph.emit(ts.Op.SIGMOID, [tensor], tensor.shape, tensor.dtype)


def test_transpose_read_twice_moves_when_its_copies_meet_again():
    # x * sigmoid(x) between two layout changes: both copies of the TRANSPOSE meet at MUL.
    graph, (x,) = new_graph((1, 2, 3, 4))
    t = transpose(graph, x, TO_NCHW)
    product = graph.emit(ts.Op.MUL, [t, sigmoid(graph, t), graph.const([0], ts.DType.INT8, stem="shift")], t.shape, FP32)
    back = transpose(graph, product, TO_NHWC)
    ops = run_before_and_after(graph, [clamp(graph, back)], [np.random.default_rng(0).standard_normal((1, 2, 3, 4), dtype=np.float32)])
    assert ops == ["SIGMOID", "MUL", "CLAMP"]


def test_transpose_read_by_two_outputs_is_not_duplicated():
    graph, (x,) = new_graph((1, 2, 3, 4))
    t = transpose(graph, x, TO_NHWC)
    ops = run_before_and_after(graph, [clamp(graph, t), sigmoid(graph, t)], [np.ones((1, 2, 3, 4), np.float32)])
    assert ops.count("TRANSPOSE") == 1


def test_residual_add_runs_in_the_transposed_layout():
    # x + f(x) twice, f transposing in and out: only the first input transpose and the last one remain.
    graph, (x,) = new_graph((1, 2, 3, 4))
    y = x
    for _ in range(2):
        inner = sigmoid(graph, transpose(graph, y, TO_NHWC))
        inner = graph.emit(ts.Op.REDUCE_SUM, [inner], (1, 3, 4, 1), FP32, 3)  # layout-sensitive: stays put
        inner = graph.emit(ts.Op.TILE, [inner, graph.shape_const([1, 1, 1, 2])], (1, 3, 4, 2), FP32)
        y = add(graph, y, transpose(graph, inner, TO_NCHW))
    ops = run_before_and_after(graph, [y], [np.random.default_rng(0).standard_normal((1, 2, 3, 4), dtype=np.float32)])
    assert ops.count("TRANSPOSE") == 2
