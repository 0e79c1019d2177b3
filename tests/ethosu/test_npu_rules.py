"""Ethos-U support rules against Vela 5.2.0 itself.

Each case is a small TOSA INT graph. For Ethos-U55 and Ethos-U85 the TOSA-level checks
(which share their rules with the partitioner) must reject it exactly when Vela
refuses to compile it, so a Vela upgrade that changes support makes these tests fail.
"""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.ethosu import npu_rules
from etarm.ethosu.backend import vela_failure_message
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.tosa_checks import check_graph
from etarm.ethosu.vela import VelaError
from etarm.testing.tosa_graphs import compile_with_vela, graph_input, int16_graph

I8, I16, I32 = ts.DType.INT8, ts.DType.INT16, ts.DType.INT32
PROPAGATE = ts.NanPropagationMode.PROPAGATE


def _rescale(graph, tensor, dtype):
    """A RESCALE by 2**-8 (int48 accumulators take 16-bit multipliers)."""
    wide = tensor.dtype == ts.DType.INT48
    multiplier = graph.const([1 << 14] if wide else [1 << 30], I16 if wide else I32)
    shift = graph.const([22 if wide else 38], I8)
    zero_in, zero_out = graph.const([0], tensor.dtype if tensor.dtype != ts.DType.INT48 else I32), graph.const([0], dtype)
    if wide:
        zero_in = graph.temp((1,), ts.DType.INT48, stem="zp48")
        graph.constants[zero_in.name] = np.zeros(1, dtype=np.int64)
    return graph.emit(
        ts.Op.RESCALE, [tensor, multiplier, shift, zero_in, zero_out], tensor.shape, dtype,
        not wide, ts.RoundingMode.SINGLE_ROUND, False, False, False,
    )  # fmt: skip


def conv(shape, kernel=(3, 3), stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), depthwise=False, channels_out=4):
    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        rng = np.random.default_rng(0)
        weights_shape = (*kernel, c, 1) if depthwise else (channels_out, *kernel, c)
        out_c = c if depthwise else channels_out
        weights = graph.const(rng.integers(-3, 3, weights_shape), I8)
        bias = graph.const(np.zeros(out_c), I32)
        oh = (h + pad[0] + pad[1] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
        ow = (w + pad[2] + pad[3] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
        op = ts.Op.DEPTHWISE_CONV2D if depthwise else ts.Op.CONV2D
        acc = graph.emit(
            op, [x, weights, bias, graph.const([0], I8), graph.const([0], I8)], (n, oh, ow, out_c), I32,
            list(pad), list(stride), list(dilation), False, I32,
        )  # fmt: skip
        return _rescale(graph, acc, I8)

    return build


def pool(kind, shape, kernel, stride, pad=(0, 0, 0, 0)):
    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        out = (n, (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1, (w + pad[2] + pad[3] - kernel[1]) // stride[1] + 1, c)
        if kind == "max":
            return graph.emit(ts.Op.MAX_POOL2D, [x], out, I8, list(kernel), list(stride), list(pad), PROPAGATE)
        zero = [graph.const([0], I8), graph.const([0], I8)]
        return graph.emit(ts.Op.AVG_POOL2D, [x, *zero], out, I8, list(kernel), list(stride), list(pad), I32)

    return build


def matmul(dtype, a_shape, b_shape):
    def build(graph):
        a, b = graph_input(graph, a_shape, dtype, "a"), graph_input(graph, b_shape, dtype, "b")
        acc_dtype = ts.DType.INT48 if dtype == I16 else I32
        zeros = [graph.const([0], dtype), graph.const([0], dtype)]
        acc = graph.emit(ts.Op.MATMUL, [a, b, *zeros], (a_shape[0], a_shape[1], b_shape[2]), acc_dtype)
        return _rescale(graph, acc, dtype)

    return build


def transpose(shape, perm, dtype=I8):
    def build(graph):
        x = graph_input(graph, shape, dtype)
        return graph.emit(ts.Op.TRANSPOSE, [x], tuple(shape[p] for p in perm), dtype, list(perm))

    return build


def reverse(shape, axis):
    return lambda graph: graph.emit(ts.Op.REVERSE, [graph_input(graph, shape)], shape, I8, axis)


def argmax(shape, axis):
    def build(graph):
        out = tuple(d for i, d in enumerate(shape) if i != axis)
        return graph.emit(ts.Op.ARGMAX, [graph_input(graph, shape)], out, I32, axis, PROPAGATE)

    return build


def gather():
    def build(graph):
        values, indices = graph_input(graph, (1, 10, 8)), graph_input(graph, (1, 4), I32, "indices")
        return graph.emit(ts.Op.GATHER, [values, indices], (1, 4, 8), I8)

    return build


def broadcast_add(a_shape, b_shape, dtype=I8):
    """int8/int16 -> RESCALE to int32 -> ADD (broadcasting) -> RESCALE back, as INT add lowers."""

    def build(graph):
        a, b = graph_input(graph, a_shape, dtype, "a"), graph_input(graph, b_shape, dtype, "b")
        wide = []
        for tensor in (a, b):
            zeros = [graph.const([0], dtype), graph.const([0], I32)]
            multiplier, shift = graph.const([1 << 30], I32), graph.const([30], I8)
            wide.append(
                graph.emit(ts.Op.RESCALE, [tensor, multiplier, shift, *zeros], tensor.shape, I32,
                           True, ts.RoundingMode.SINGLE_ROUND, False, False, False)
            )  # fmt: skip
        shape = tuple(max(p, q) for p, q in zip(a_shape, b_shape))
        return _rescale(graph, graph.emit(ts.Op.ADD, wide, shape, I32), dtype)

    return build


CASES = {
    "add broadcast both sides": broadcast_add((1, 4, 1, 8), (1, 1, 4, 1)),
    "add broadcast rank 5": broadcast_add((2, 3, 4, 5, 6), (1, 3, 1, 5, 1)),
    "add int16 broadcast": broadcast_add((1, 4, 4, 8), (1, 1, 4, 1), I16),
    "conv 3x3": conv((1, 16, 16, 8)),
    "conv stride 4": conv((1, 31, 31, 8), stride=(4, 4)),
    "conv stride 4 padded": conv((1, 29, 29, 8), stride=(4, 4), pad=(1, 1, 1, 1)),
    "conv stride 4 dilated": conv((1, 33, 33, 8), stride=(4, 4), dilation=(2, 2)),
    "conv 65536 channels": conv((1, 1, 1, 65536), kernel=(1, 1), channels_out=2),
    "conv 70000 channels": conv((1, 1, 1, 70000), kernel=(1, 1), channels_out=2),
    "depthwise stride 3": conv((1, 31, 31, 8), stride=(3, 3), pad=(1, 1, 1, 1), depthwise=True),
    "depthwise stride 4": conv((1, 31, 31, 8), stride=(4, 4), depthwise=True),
    "max pool stride 4": pool("max", (1, 16, 16, 8), (4, 4), (4, 4)),
    "max pool stride 4 padded": pool("max", (1, 18, 18, 8), (4, 4), (4, 4), (1, 1, 1, 1)),
    "avg pool 8x8 padded": pool("avg", (1, 16, 16, 8), (8, 8), (1, 1), (3, 4, 3, 4)),
    "avg pool 9x9 padded": pool("avg", (1, 16, 16, 8), (9, 9), (1, 1), (4, 4, 4, 4)),
    "matmul int8": matmul(I8, (1, 8, 16), (1, 16, 4)),
    "matmul int16": matmul(I16, (1, 8, 16), (1, 16, 4)),
    "matmul K 70000": matmul(I8, (1, 2, 70000), (1, 70000, 2)),
    "transpose NCHW to NHWC": transpose((1, 8, 16, 16), (0, 2, 3, 1)),
    "transpose int32 rank 5": transpose((2, 3, 4, 5, 6), (4, 3, 2, 1, 0), I32),
    "transpose merged axes": transpose((300, 300, 2, 2), (1, 0, 2, 3)),
    "transpose product too big": transpose((2, 300, 300, 2), (3, 0, 1, 2)),
    "transpose channel too big": transpose((1, 2, 2, 70000), (0, 3, 1, 2)),
    "reverse height": reverse((1, 4, 5, 6), 1),
    "reverse channels": reverse((1, 4, 5, 6), 3),
    "argmax channels": argmax((1, 4, 4, 8), 3),
    "argmax height": argmax((1, 4, 4, 8), 1),
    "argmax 200 channels": argmax((1, 4, 4, 200), 3),
    "gather": gather(),
}


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("case", list(CASES))
def test_rules_agree_with_vela(tmp_path, case, target):
    graph = int16_graph()
    graph.mark_output(CASES[case](graph))
    spec = EthosUCompileSpec(target)
    violations = check_graph(graph, spec.family.key)
    try:
        compile_with_vela(graph, spec, tmp_path)
        compiled, why = True, ""
    except VelaError as exc:
        compiled, why = False, str(exc)
    assert compiled == (not violations), f"Vela compiled={compiled} ({why}); checks said {violations}"


def test_vela_failure_names_the_aten_node(tmp_path):
    """Vela names only an operator type; the message adds the fx nodes that emitted it."""
    graph = int16_graph()
    graph.origin = "aten_bmm_default_3"
    result = matmul(I16, (1, 8, 16), (1, 16, 4))(graph)
    graph.origin = None
    graph.mark_output(result)
    spec = EthosUCompileSpec("ethos-u55-128")
    with pytest.raises(VelaError) as failure:
        compile_with_vela(graph, spec, tmp_path)
    assert isinstance(failure.value, EtarmError)
    message = vela_failure_message(failure.value, graph, spec, {"aten_bmm_default_3": "aten.bmm.default"})
    assert "Non-passthrough operation (MatMul) could not run on NPU" in message
    assert "the MatMul comes from: aten.bmm.default (node 'aten_bmm_default_3')" in message


def test_vela_option_errors_are_clear(tmp_path):
    graph = int16_graph()
    graph.mark_output(transpose((1, 8, 4, 4), (0, 2, 3, 1))(graph))
    spec = EthosUCompileSpec("ethos-u55-128", extra_flags=["--no-such-flag"])
    with pytest.raises(VelaError, match="^Vela rejected its options: vela: error: unrecognized arguments: --no-such-flag$"):
        compile_with_vela(graph, spec, tmp_path)
    spec = EthosUCompileSpec("ethos-u55-128", extra_flags=["--optimise", "Fastest"])
    with pytest.raises(VelaError, match="^Vela failed with KeyError: Fastest \\(extra flags: --optimise Fastest\\)$"):
        compile_with_vela(graph, spec, tmp_path)


@pytest.mark.parametrize(
    "family, reason",
    [
        ("u55", lambda: npu_rules.resize_reason("u55", 3, 3)),
        ("u55", lambda: npu_rules.dtype_reason("u55", "bool")),
        ("u55", lambda: npu_rules.native_reduce_sum_reason("u55", (70000, 2), 0)),
        ("u55", lambda: npu_rules.rank_reason((1,) * 7)),
        ("u55", lambda: npu_rules.transpose_convolution_reason("u55", (3, 3), (4, 4), (3, 3))),
    ],
)
def test_documented_limits(family, reason):
    """Rules taken from Vela's documentation (supported-ops report), not measured above."""
    assert "Ethos-U" in reason()


def test_u85_runs_what_u55_cannot():
    assert npu_rules.table_reason("u55", "int16") is None and npu_rules.table_reason("u85", "int16") is None
    assert npu_rules.resize_reason("u85", 3, 3) is None
    assert npu_rules.dtype_reason("u85", "bool") is None
    assert npu_rules.reduce_sum_reason("u85", (70000, 2), 0) is None
