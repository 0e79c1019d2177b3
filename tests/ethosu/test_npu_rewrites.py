"""The TOSA rewrites for Ethos-U55/U65 (python/etarm/ethosu/tosa_rewrites.py) against Vela itself.

Each case is a small TOSA INT graph refused for ethos-u55-128 as lowered (by Vela 5.2.0, or
by the documented limits the TOSA checks apply). After the rewrite the graph must give
bit-identical results on the TOSA reference model, pass the TOSA-level checks, and
compile with Vela; Ethos-U85 needs none of them.
"""

import numpy as np
import pytest
import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.tosa_checks import check_graph
from etarm.ethosu.tosa_rewrites import _compact_transpose, half_pixel_nearest, rewrite_for_npu
from etarm.ethosu.vela import VelaError
from etarm.testing.tosa_graphs import compile_with_vela, graph_input, int16_graph
from etarm.testing.tosa_reference import run_tosa

I8, I16, I32 = ts.DType.INT8, ts.DType.INT16, ts.DType.INT32


def _rescale(graph, tensor, multiplier=1 << 30, shift=36, dtype=I8):
    """RESCALE by multiplier * 2**-shift (per tensor, or per channel with a list)."""
    multipliers = np.atleast_1d(multiplier)
    per_channel = multipliers.size > 1
    inputs = [
        tensor, graph.const(multipliers, I32), graph.const(np.full(multipliers.size, shift), I8),
        graph.const([0], tensor.dtype), graph.const([0], dtype),
    ]  # fmt: skip
    return graph.emit(ts.Op.RESCALE, inputs, tensor.shape, dtype, True, ts.RoundingMode.SINGLE_ROUND, per_channel, False, False)


def conv(shape, kernel, stride, pad=(0, 0, 0, 0), dilation=(1, 1), depthwise=True, rescaled=True, zero_point=0):
    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        rng = np.random.default_rng(0)
        weights = graph.const(rng.integers(-3, 4, (*kernel, c, 1) if depthwise else (6, *kernel, c)), I8)
        out_c = c if depthwise else 6
        oh = (h + pad[0] + pad[1] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
        ow = (w + pad[2] + pad[3] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
        op = ts.Op.DEPTHWISE_CONV2D if depthwise else ts.Op.CONV2D
        operands = [x, weights, graph.const(rng.integers(-50, 50, out_c), I32), graph.const([zero_point], I8), graph.const([0], I8)]
        acc = graph.emit(op, operands, (n, oh, ow, out_c), I32, list(pad), list(stride), list(dilation), False, I32)
        if not rescaled:
            return acc
        return _rescale(graph, acc, multiplier=list(range(1 << 30, (1 << 30) + out_c)) if out_c > 1 else 1 << 30)

    return build


def max_pool(shape, kernel, stride, pad):
    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        out = (n, (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1, (w + pad[2] + pad[3] - kernel[1]) // stride[1] + 1, c)
        return graph.emit(ts.Op.MAX_POOL2D, [x], out, I8, list(kernel), list(stride), list(pad), ts.NanPropagationMode.PROPAGATE)

    return build


def nearest(shape, out_hw, scale, offset, border):
    def build(graph):
        x = graph_input(graph, shape)
        params = [graph.shape_const(scale), graph.shape_const(offset), graph.shape_const(border)]
        return graph.emit(ts.Op.RESIZE, [x, *params], (shape[0], *out_hw, shape[3]), I8, ts.ResizeMode.NEAREST)

    return build


def extremum(op, shape_a, shape_b, dtype=I8):
    """The INT lowering of maximum/minimum with shared parameters: widen, compare, narrow by CAST."""

    def build(graph):
        a, b = graph_input(graph, shape_a, dtype, "a"), graph_input(graph, shape_b, dtype, "b")
        wide = [graph.emit(ts.Op.CAST, [t], t.shape, I32) for t in (a, b)]
        shape = tuple(max(p, q) for p, q in zip(shape_a, shape_b))
        result = graph.emit(op, wide, shape, I32, ts.NanPropagationMode.PROPAGATE)
        flat = graph.reshape(result, (int(np.prod(shape)),))  # a RESHAPE between, as after broadcasting
        return graph.emit(ts.Op.CAST, [flat], flat.shape, dtype)

    return build


def long_sum(length, rows=1):
    """The quantized sum over the last axis of a [rows, length] tensor: widen, REDUCE_SUM, RESCALE."""

    def build(graph):
        x = graph_input(graph, (rows, length))
        total = graph.emit(ts.Op.REDUCE_SUM, [_widen(graph, x, 3)], (rows, 1), I32, 1)
        return _rescale(graph, total, 1 << 30, 46)

    return build


CASES = {
    # name: (graph builder, the rewrite expected to fire)
    "depthwise stride 4 padded": (conv((1, 17, 13, 8), (3, 3), (4, 4), (1, 1, 1, 1)), "subsample_strided_convolutions"),
    "depthwise stride (5, 2)": (conv((1, 20, 12, 4), (5, 3), (5, 2), (0, 0, 1, 0)), "subsample_strided_convolutions"),
    "depthwise stride 4, int32 result": (conv((1, 16, 16, 4), (4, 4), (4, 4), rescaled=False), "subsample_strided_convolutions"),
    "depthwise global 25x5 window": (conv((1, 25, 5, 8), (25, 5), (25, 5)), "subsample_strided_convolutions"),
    "depthwise stride 4, zero point": (conv((1, 16, 16, 4), (4, 4), (4, 4), zero_point=-5), "subsample_strided_convolutions"),
    "conv stride 4 dilated": (conv((1, 21, 25, 4), (3, 3), (4, 4), dilation=(2, 2), depthwise=False), "subsample_strided_convolutions"),
    "max pool stride 4 padded": (max_pool((1, 18, 18, 8), (4, 4), (4, 4), (1, 1, 1, 1)), "pad_strided_max_pools"),
    "max pool stride (4, 5) padded": (max_pool((1, 17, 19, 4), (3, 5), (4, 5), (1, 1, 0, 1)), "pad_strided_max_pools"),
    "nearest 2x (etarm's encoding)": (nearest((1, 8, 6, 4), (16, 12), [2, 1, 2, 1], [-1, -1], [0, 0]), "nearest_resizes_as_half_pixel"),
    "nearest 4x": (nearest((1, 4, 5, 4), (16, 20), [4, 1, 4, 1], [-2, -2], [1, 1]), "nearest_resizes_as_half_pixel"),
    "maximum int8": (extremum(ts.Op.MAXIMUM, (1, 4, 8, 8), (1, 4, 1, 8)), "extremum_casts_as_rescales"),
    "sum over 90000 values": (long_sum(90000, 2), "sums_in_steps"),  # 2 x 45000
    "sum over 70001 values (prime)": (long_sum(70001), "sums_in_steps"),  # zero-padded to 2 x 65536
    "minimum int16": (extremum(ts.Op.MINIMUM, (2, 8, 8), (2, 8, 8), I16), "extremum_casts_as_rescales"),
}


def _compiles(graph, target, directory) -> str | None:
    """None when Vela compiles the graph for ``target``, else its message."""
    try:
        compile_with_vela(graph, EthosUCompileSpec(target), directory)
        return None
    except VelaError as exc:
        return str(exc)


def _inputs(graph):
    rng = np.random.default_rng(3)
    arrays = []
    for name in graph.inputs:
        tensor = graph.tensors[name]
        info = np.iinfo(np.int8 if tensor.dtype == I8 else np.int16)
        arrays.append(rng.integers(info.min, info.max + 1, tensor.shape).astype(info.dtype))
    return arrays


@pytest.mark.parametrize("case", list(CASES))
def test_rewrite_is_exact_and_compiles_on_u55(tmp_path, case):
    build, rewrite = CASES[case]
    graph = int16_graph()
    graph.mark_output(build(graph))
    inputs = _inputs(graph)
    before = run_tosa(graph.serialize(), inputs)
    # Refused as lowered: by Vela, or by the documented limits the TOSA checks apply (Vela 5.2.0
    # compiles a global window's stride and an int32 -> int8 CAST, which its documentation excludes).
    assert check_graph(graph, "u55") or _compiles(graph, "ethos-u55-128", tmp_path), "nothing to rewrite"
    assert rewrite_for_npu(graph, "u85") == {}  # U85 runs the graph as it is
    assert rewrite_for_npu(graph, "u55") == {rewrite: 1}
    after = run_tosa(graph.serialize(), inputs)
    for got, want in zip(after, before, strict=True):
        np.testing.assert_array_equal(got, want)
    assert check_graph(graph, "u55") == []
    assert _compiles(graph, "ethos-u55-128", tmp_path) is None


def test_global_window_only_changes_the_stride():
    graph = int16_graph()
    graph.mark_output(conv((1, 25, 5, 8), (25, 5), (25, 5))(graph))
    rewrite_for_npu(graph, "u55")
    assert [op.op.name for op in graph.ops] == ["DEPTHWISE_CONV2D", "RESCALE"]
    assert graph.ops[0].attr_args[1] == [1, 1]


def test_subsampling_follows_the_rescale():
    """int8 rather than int32 data is subsampled when the convolution feeds one RESCALE."""
    graph = int16_graph()
    graph.mark_output(conv((1, 17, 19, 8), (3, 3), (4, 4), (1, 1, 1, 1))(graph))
    rewrite_for_npu(graph, "u55")
    names = [op.op.name for op in graph.ops]
    assert names[:2] == ["DEPTHWISE_CONV2D", "RESCALE"] and "SLICE" in names[2:]
    assert all(graph.tensors[op.inputs[0]].dtype == I8 for op in graph.ops if op.op == ts.Op.SLICE)


@pytest.mark.parametrize(
    "size, split",
    [(65536, (1, 65536)), (90000, (2, 45000)), (70001, (2, 65536)), (65536 * 3 + 5, (4, 65536)), (2**32, (65536, 65536))],
)
def test_sum_split(size, split):
    assert npu_rules.sum_split(size) == split
    outer, inner = split
    assert outer * inner >= size and max(split) <= 65536


@pytest.mark.parametrize(
    "in_size, out_size, params, expected",
    [
        (8, 16, (2, 1, -1), (4, 2, -1, 1)),  # etarm's nearest 2x
        (8, 16, (4, 2, -1), (4, 2, -1, 1)),  # already half-pixel
        (3, 24, (8, 1, -4), (16, 2, -7, 7)),  # 8x
        (8, 24, (6, 2, -2), None),  # 3x: Vela upscales by powers of two only
        (8, 16, (2, 1, 0), None),  # rounds half up to the next row: not a repeat
        (1, 1, (1, 1, 0), (2, 2, 0, 0)),
    ],
)
def test_half_pixel_nearest(in_size, out_size, params, expected):
    assert half_pixel_nearest(in_size, out_size, *params) == expected


def test_casts_not_after_an_extremum_stay():
    """A CAST of int32 data of unknown range keeps wrapping (and stays a U55 violation)."""
    graph = int16_graph()
    x = graph_input(graph, (1, 8), I32)
    graph.mark_output(graph.emit(ts.Op.CAST, [x], x.shape, I8))
    assert rewrite_for_npu(graph, "u55") == {}
    assert [v.tosa_op for v in check_graph(graph, "u55")] == ["CAST"]


# --- rewrites that only save cycles (both families) ---------------------------------------------
def _widen(graph, tensor, zero_point=0, multiplier=1 << 30, shift=30):
    """int8 -> int32 ``(q - zero_point) * multiplier * 2**-shift`` (by default the INT
    lowering's centring RESCALE; ADD operands are scaled up to a common scale)."""
    inputs = [tensor, graph.const([multiplier], I32), graph.const([shift], I8), graph.const([zero_point], I8), graph.const([0], I32)]
    return graph.emit(ts.Op.RESCALE, inputs, tensor.shape, I32, True, ts.RoundingMode.SINGLE_ROUND, False, False, False)


def spatial_mean(perm=(0, 3, 1, 2), merged=(32, 64), axis=1):
    """mean over H, W of an NHWC tensor as the INT lowering leaves it: widen, TRANSPOSE to
    NCHW, RESHAPE, REDUCE_SUM, RESCALE."""

    def build(graph):
        x = graph_input(graph, (1, 8, 8, 32))
        moved = graph.emit(ts.Op.TRANSPOSE, [_widen(graph, x, -7)], tuple((1, 8, 8, 32)[p] for p in perm), I32, list(perm))
        flat = graph.reshape(moved, merged)
        shape = list(merged)
        shape[axis] = 1
        return _rescale(graph, graph.emit(ts.Op.REDUCE_SUM, [flat], tuple(shape), I32, axis), 1 << 30, 36)

    return build


def global_pool(shape=(1, 25, 5, 32)):
    def build(graph):
        x = graph_input(graph, shape)
        n, h, w, c = shape
        operands = [x, graph.const(np.ones((h, w, c, 1)), I8), graph.const(np.zeros(c), I32), graph.const([-3], I8), graph.const([0], I8)]
        acc = graph.emit(ts.Op.DEPTHWISE_CONV2D, operands, (n, 1, 1, c), I32, [0, 0, 0, 0], [h, w], [1, 1], False, I32)
        return _rescale(graph, acc, 1 << 30, 37)

    return build


def residual_add(graph):
    """x (NCHW) + a channels-last convolution of it: the convolution's result widened, then
    TRANSPOSEd to NCHW, then ADD (as the layout passes leave a residual block)."""
    x = graph_input(graph, (1, 16, 12, 12), name="x")
    nhwc = graph.emit(ts.Op.TRANSPOSE, [x], (1, 12, 12, 16), I8, [0, 2, 3, 1])
    weights = graph.const(np.random.default_rng(1).integers(-3, 4, (16, 1, 1, 16)), I8)
    operands = [nhwc, weights, graph.const(np.zeros(16), I32), graph.const([5], I8), graph.const([0], I8)]
    acc = graph.emit(ts.Op.CONV2D, operands, (1, 12, 12, 16), I32, [0, 0, 0, 0], [1, 1], [1, 1], False, I32)
    branch = _rescale(graph, acc, 1 << 30, 36)
    # the operand scales inverted_residual's add gets (2**19 and ~2**16.98)
    wide = graph.emit(ts.Op.TRANSPOSE, [_widen(graph, branch, 0, 2113952428, 14)], (1, 16, 12, 12), I32, [0, 3, 1, 2])
    total = graph.emit(ts.Op.ADD, [_widen(graph, x, 5, 1 << 30, 11), wide], (1, 16, 12, 12), I32)
    return _rescale(graph, total, 2107965936, 50)


def pooled_to_nchw(graph):
    x = graph_input(graph, (1, 1, 1, 32))
    return graph.emit(ts.Op.TRANSPOSE, [x], (1, 32, 1, 1), I8, [0, 3, 1, 2])


def heads_to_front(graph):
    """torch's multi-head attention moving q, k and v (axis 3) to the front of its projection."""
    x = graph_input(graph, (1, 10, 1, 3, 32))
    moved = graph.emit(ts.Op.TRANSPOSE, [x], (3, 10, 1, 1, 32), I8, [3, 1, 2, 0, 4])
    return graph.reshape(moved, (3, 10, 32))


SAVINGS = {
    "spatial mean": (spatial_mean(), "reductions_without_transposes"),
    "global average pool": (global_pool(), "global_pools_as_sums"),
    "residual add": (residual_add, "narrow_transposes"),
    "1x1 image to NCHW": (pooled_to_nchw, "trivial_transposes_as_reshapes"),
}
U85_SAVINGS = {"rank-5 transpose": (heads_to_front, "transposes_at_lowest_rank")}


@pytest.mark.parametrize(
    "shape, perm, compact",
    [
        ((1, 10, 1, 3, 32), (3, 1, 2, 0, 4), ([10, 3, 32], [1, 0, 2])),
        ((2, 3, 4, 5, 6), (0, 3, 4, 1, 2), ([2, 12, 30], [0, 2, 1])),  # (3, 4) and (5, 6) move together
        ((2, 3, 4, 5), (0, 2, 1, 3), None),  # nothing to drop or merge
    ],
)
def test_transposes_at_lowest_rank_drop_unit_axes_and_merge_runs(shape, perm, compact):
    assert _compact_transpose(shape, list(perm)) == compact


def test_rank5_transposes_stay_on_u55():
    graph = int16_graph()
    graph.mark_output(heads_to_front(graph))
    assert rewrite_for_npu(graph, "u55") == {}


def _cycles(graph, target, directory) -> int:
    return compile_with_vela(graph, EthosUCompileSpec(target), directory).estimates["cycles_total"]


@pytest.mark.parametrize(
    "case, target",
    [(case, target) for case in SAVINGS for target in ("ethos-u55-128", "ethos-u85-256")]
    + [(case, "ethos-u85-256") for case in U85_SAVINGS],
)
def test_rewrite_is_exact_and_costs_no_more(tmp_path, case, target):
    build, rewrite = {**SAVINGS, **U85_SAVINGS}[case]
    graph = int16_graph()
    graph.mark_output(build(graph))
    inputs = _inputs(graph)
    before, cycles = run_tosa(graph.serialize(), inputs), _cycles(graph, target, tmp_path)
    assert rewrite_for_npu(graph, EthosUCompileSpec(target).family.key) == {rewrite: 1}
    for got, want in zip(run_tosa(graph.serialize(), inputs), before, strict=True):
        np.testing.assert_array_equal(got, want)
    saved = cycles - _cycles(graph, target, tmp_path)
    assert saved >= 0 if case == "1x1 image to NCHW" else saved > 0, f"{cycles} cycles before, {cycles - saved} after"


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("then_table", [False, True], ids=["alone", "before_a_table"])
def test_linear_rows_as_batch_on_u85_only(tmp_path, target, then_table):
    """A 1x1 CONV2D over 8 rows ([1, 8, 1, 16], a linear) takes them as its batch on
    Ethos-U85 (fewer cycles, same integers), except before a TABLE Vela would fuse."""
    graph = int16_graph()
    result = conv((1, 8, 1, 16), (1, 1), (1, 1), depthwise=False)(graph)
    if then_table:
        table = graph.const(np.arange(-128, 128) // 2, I8)
        result = graph.emit(ts.Op.TABLE, [result, table], result.shape, I8)
    graph.mark_output(result)
    inputs = _inputs(graph)
    before, cycles = run_tosa(graph.serialize(), inputs), _cycles(graph, target, tmp_path)
    fires = target == "ethos-u85-256" and not then_table
    assert rewrite_for_npu(graph, EthosUCompileSpec(target).family.key) == ({"pointwise_rows_as_batch": 1} if fires else {})
    for got, want in zip(run_tosa(graph.serialize(), inputs), before, strict=True):
        np.testing.assert_array_equal(got, want)
    if fires:
        assert _cycles(graph, target, tmp_path) < cycles


@pytest.mark.parametrize(
    "perm, merged, axis",
    [
        ((0, 3, 2, 1), (32, 64), 1),  # the kept channels would come out in another order: no
        ((0, 3, 1, 2), (256, 8), 1),  # sums over W only while C and H swap: no
    ],
)
def test_reductions_keep_transposes_that_matter(perm, merged, axis):
    graph = int16_graph()
    graph.mark_output(spatial_mean(perm, merged, axis)(graph))
    assert "reductions_without_transposes" not in rewrite_for_npu(graph, "u85")


def test_long_mean_runs_on_ethos_u55_in_steps():
    """Through the flow: a mean over 300x300 values (the lowering merges H and W into one axis)."""
    import torch

    from etarm.compiler import compile_model
    from etarm.testing.cpu_fallback import Fn

    torch.manual_seed(0)
    report = compile_model(Fn(lambda x: x.mean(dim=(2, 3))), (torch.randn(1, 4, 300, 300),), "ethos-u55-128", quantize=True).report
    assert all("quantize" in entry["op"] for entry in report["cpu_ops"])
    (partition,) = report["partitions"]
    assert partition["npu_rewrites"] == {"sums_in_steps": 1}
