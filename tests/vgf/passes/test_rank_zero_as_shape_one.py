"""RankZeroAsShapeOne (python/etarm/vgf/passes/): no rank-0 tensor left, the same results on
the TOSA reference model, and the model converter's .vgf has no rank-0 resource."""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.testing.tosa_graphs import graph_input
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.graph import TosaGraph
from etarm.tosa_ir.specification import TosaSpecification
from etarm.vgf.model_converter import convert
from etarm.vgf.passes.rank_zero_as_shape_one import RankZeroAsShapeOne
from etarm.vgf.vgf_file import read_vgf

F32, I8, I32 = ts.DType.FP32, ts.DType.INT8, ts.DType.INT32


def fp_graph() -> TosaGraph:
    return TosaGraph(TosaSpecification.create_from_string("TOSA-1.0+FP"))


def int_graph() -> TosaGraph:
    return TosaGraph(TosaSpecification.create_from_string("TOSA-1.0+INT"))


def reshape(graph, tensor, shape):
    return graph.emit(ts.Op.RESHAPE, [tensor, graph.shape_const(shape)], shape, tensor.dtype)


def sum_to_scalar(graph):
    """x [2, 3] -> REDUCE_SUM twice -> RESHAPE to rank 0, plus a rank-0 constant: x.sum() + 1."""
    x = graph_input(graph, (2, 3), F32)
    total = graph.emit(ts.Op.REDUCE_SUM, [x], (1, 3), F32, 0)
    total = graph.emit(ts.Op.REDUCE_SUM, [total], (1, 1), F32, 1)
    scalar = reshape(graph, total, ())
    return graph.binary(ts.Op.ADD, scalar, graph.const(np.float32(1.0), F32))


def scalar_input_ops(graph):
    """A rank-0 input through elementwise ops (with rank-0 operands), then RESHAPE to [1, 1]."""
    s = graph_input(graph, (), F32, name="s")
    negated = graph.emit(ts.Op.NEGATE, [s, graph.const([0.0], F32), graph.const([0.0], F32)], (), F32)
    scaled = graph.binary(ts.Op.MUL, negated, graph.const(np.float32(3.0), F32))
    return reshape(graph, graph.emit(ts.Op.ABS, [scaled], (), F32), (1, 1))


def argmax_of_vector(graph):
    """ARGMAX of a rank-1 tensor: a rank-0 index."""
    x = graph_input(graph, (7,), I8)
    return graph.emit(ts.Op.ARGMAX, [x], (), I32, 0, ts.NanPropagationMode.PROPAGATE)


CASES = {"sum": (fp_graph, sum_to_scalar), "scalar input": (fp_graph, scalar_input_ops), "argmax": (int_graph, argmax_of_vector)}


def built(case):
    make, build = CASES[case]
    graph = make()
    graph.mark_output(build(graph))
    return graph


def sample_inputs(graph):
    rng = np.random.default_rng(5)
    arrays = []
    for name in graph.inputs:
        tensor = graph.tensors[name]
        if tensor.dtype == I8:
            arrays.append(rng.integers(-128, 128, tensor.shape).astype(np.int8))
        else:
            arrays.append(np.asarray(rng.standard_normal(tensor.shape), dtype=np.float32))
    return arrays


def ranks(graph):
    return {name: graph.tensors[name].rank for name in graph.tensors}


@pytest.mark.parametrize("case", CASES)
def test_no_rank_zero_and_the_same_results(case):
    graph = built(case)
    inputs = sample_inputs(graph)
    before = run_tosa(graph.serialize(), inputs)
    assert 0 in ranks(graph).values()
    assert RankZeroAsShapeOne().run(graph) > 0
    serialized = graph.serialize()  # what the converter gets: only the tensors ops use
    used = {name for op in graph.ops for name in (*op.inputs, *op.outputs)}
    assert all(graph.tensors[name].rank > 0 for name in used if graph.tensors[name].dtype != ts.DType.SHAPE)
    # The same bytes in: rank-0 inputs are given as [1].
    after = run_tosa(serialized, [a.reshape(graph.tensors[n].shape) for a, n in zip(inputs, graph.inputs)])
    for got, want in zip(after, before, strict=True):
        assert got.size == want.size and got.dtype == want.dtype
        np.testing.assert_array_equal(got.reshape(want.shape), want)


def test_ops_that_take_rank_one_or_more_are_refused():
    graph = fp_graph()
    s = graph_input(graph, (), F32)
    graph.mark_output(graph.emit(ts.Op.TRANSPOSE, [s], (), F32, []))
    with pytest.raises(EtarmError, match="TRANSPOSE of the rank-0 tensor"):
        RankZeroAsShapeOne().run(graph)


@pytest.mark.parametrize("case", CASES)
def test_the_converted_vgf_has_no_rank_zero_tensor(case, tmp_path):
    graph = built(case)
    RankZeroAsShapeOne().run(graph)
    (tmp_path / "g.tosa").write_bytes(graph.serialize())
    convert(str(tmp_path / "g.tosa"), str(tmp_path / "g.vgf"), [])
    contents = read_vgf((tmp_path / "g.vgf").read_bytes())
    assert [t.shape for t in contents.inputs + contents.outputs] and all(
        len(t.shape) > 0 for t in contents.inputs + contents.outputs
    )


def test_argmax_reduces_a_row():
    graph = built("argmax")
    RankZeroAsShapeOne().run(graph)
    assert [op.op.name for op in graph.ops] == ["RESHAPE", "ARGMAX"]
    assert graph.ops[1].attr_args[0] == 1 and graph.tensors[graph.ops[1].inputs[0]].shape == (1, 7)


def test_graphs_without_rank_zero_stay_as_they_are():
    graph = fp_graph()
    x = graph_input(graph, (2, 3), F32)
    graph.mark_output(graph.emit(ts.Op.REDUCE_SUM, [x], (1, 3), F32, 0))
    graph.const(np.float32(2.0), F32)  # unused: not serialized, not rewritten
    before = graph.serialize()
    assert RankZeroAsShapeOne().run(graph) == 0
    assert graph.serialize() == before
