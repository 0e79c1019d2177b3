"""Pooling, reductions and resizes on the TOSA INT profile, against the convert_pt2e'd model.

Max/min-style ops (max pools, amax/amin, max/min, nearest resizes, pixel shuffles) move
integers unchanged: 0 LSB. Averaging ops (avg pools, mean, sum, cumsum, bilinear) add
``q - zero_point`` exactly in int32 and round once in a RESCALE (half up), where torch
rounds its float result once (half to even): 1 LSB. Index results (argmax/argmin,
max.dim/min.dim's indices) must match exactly. Each model computes several cases at once
(one compile each) to keep the file quick.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from torchao.quantization.pt2e import MinMaxObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from etarm.compiler import compile_model
from etarm.pte import delegate_payloads
from etarm.quantizer.annotation import annotate
from etarm.quantizer.quantization_config import QuantizationConfig, get_symmetric_quantization_config
from etarm.quantizer.tosa_quantizer import EthosUQuantizer, TOSAQuantizer
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close, qparams_from_report
from etarm.testing.tosa_reference import run_tosa

INT16 = "TOSA-1.0+INT+int16"
# int16 outputs dequantize to float32, which near full scale is off by up to ~2e-3 steps.
INT16_ONE_LSB = 1.005


def _x(*shape, seed=0, scale=2.0):
    torch.manual_seed(seed + len(shape))
    return torch.randn(shape) * scale


def _inputs(*shapes):
    return tuple(_x(*shape, seed=i) for i, shape in enumerate(shapes))


def _ops(run):
    return run.result.report["partitions"][0]["tosa_ops"]


def _cpu_reasons(fn, inputs, target="TOSA-1.0+INT", quantizer=None):
    report = compile_model(Fn(fn), inputs, target, quantize=True, quantizer=quantizer).report
    return {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}


def _run_unquantized_outputs(fn, inputs, target="TOSA-1.0+INT"):
    """For outputs without quantization parameters (indices, bools): the partition's raw
    outputs, in program order, and the quantized model's eager outputs."""
    result = compile_model(Fn(fn), inputs, target, quantize=True)
    (partition,) = result.report["partitions"]
    (payload,) = delegate_payloads(result.pte)
    arrays = []
    for tensor, entry in zip(inputs, partition["inputs"]):
        arrays.append(qparams_from_report(entry).quantize(tensor).numpy() if "scale" in entry else tensor.numpy())
    outputs = run_tosa(payload.data, arrays)
    with torch.no_grad():
        expected = result.quantized_model(*inputs)
    # Partition outputs come in their own order: report["outputs_from"] maps program outputs to them.
    got = [outputs[source[1]] for source in result.report["outputs_from"]]
    return got, list(expected) if isinstance(expected, (tuple, list)) else [expected]


# --- max pooling: values move unchanged ------------------------------------------------------


def test_int8_max_pools_are_exact():
    fn = lambda x, y, z: (  # noqa: E731
        F.max_pool2d(x, 3, 2, 1),
        F.max_pool2d(x, 2, ceil_mode=True),  # odd size: a window past the edge
        F.max_pool2d(y, (2, 3), (1, 2), (1, 0)),  # unbatched, asymmetric
        F.max_pool1d(z, 3, 2, 1, ceil_mode=True),
    )
    run = assert_quantized_close(Fn(fn), _inputs((2, 3, 9, 9), (3, 7, 10), (2, 3, 10)), max_lsb=0)
    assert _ops(run).count("MAX_POOL2D") == 4 and "RESCALE" not in _ops(run)


# --- average pooling: int32 window sums, one RESCALE ------------------------------------------

# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, input shape)
AVG_POOL2D = [
    [
        (2, None, 0, False, True, None, (2, 3, 8, 8)),
        (3, 2, 1, False, True, None, (2, 3, 7, 8)),  # counted padding: one divisor
        (3, 2, 1, False, False, None, (2, 3, 7, 8)),  # uncounted padding: divisors per position
    ],
    [
        (3, 2, 1, True, True, None, (1, 2, 8, 9)),  # ceil_mode windows past the padding are not counted
        ((2, 4), (3, 2), (1, 2), True, False, None, (2, 9, 11)),  # unbatched, asymmetric, odd sizes
        (3, 2, 1, True, True, 5, (1, 2, 8, 9)),  # divisor_override
    ],
]


@pytest.mark.parametrize("cases", AVG_POOL2D, ids=["padding", "ceil_unbatched_override"])
def test_int8_avg_pool2d(cases):
    def fn(*inputs):
        return tuple(F.avg_pool2d(x, k, s, p, c, i, d) for x, (k, s, p, c, i, d, _) in zip(inputs, cases))

    run = assert_quantized_close(Fn(fn), _inputs(*(case[-1] for case in cases)))
    assert _ops(run).count("DEPTHWISE_CONV2D") == 3 and "AVG_POOL2D" not in _ops(run)


def test_int8_avg_pool1d_and_adaptive_pools():
    fn = lambda x, y, z: (  # noqa: E731
        F.avg_pool1d(x, 4, 3, 2, ceil_mode=True, count_include_pad=False),
        F.adaptive_avg_pool2d(y, (3, 2)),  # regular windows: an ordinary average pool
        F.adaptive_avg_pool2d(z, 1),  # global: a mean (REDUCE_SUM)
    )
    run = assert_quantized_close(Fn(fn), _inputs((2, 3, 13), (1, 4, 9, 8), (2, 16, 7, 7)))
    assert _ops(run).count("DEPTHWISE_CONV2D") == 2 and _ops(run).count("REDUCE_SUM") == 1


def test_int8_averages_keeping_their_parameters_are_avg_pools():
    """EthosUQuantizer on U85 quantizes averages with their input's parameters: each unpadded
    one is an AVG_POOL2D, rounding half up where torch rounds half to even (1 LSB); a
    padded pool still sums windows. Ethos-U55 keeps separate parameters and the sums."""
    fn = lambda x, y: (  # noqa: E731
        F.avg_pool2d(x, 2),
        F.avg_pool2d(x, 3, 1, 1),  # counted padding
        F.adaptive_avg_pool2d(y, 1),  # a mean over height and width
        y.mean((2, 3), keepdim=True),
        F.adaptive_avg_pool2d(y, (1, 7)),
    )
    inputs = (torch.relu(_x(1, 8, 8, 8)), _x(2, 4, 5, 7, seed=1))
    config = get_symmetric_quantization_config()
    run = assert_quantized_close(Fn(fn), inputs, quantizer=EthosUQuantizer("ethos-u85-256").set_global(config))
    assert _ops(run).count("AVG_POOL2D") == 4 and _ops(run).count("DEPTHWISE_CONV2D") == 1
    report = run.result.report["partitions"][0]
    assert report["outputs"][0]["scale"] == report["inputs"][0]["scale"]
    run = assert_quantized_close(Fn(fn), inputs, quantizer=EthosUQuantizer("ethos-u55-128").set_global(config))
    assert "AVG_POOL2D" not in _ops(run)


# --- sum / mean: REDUCE_SUM in int32, one RESCALE -----------------------------------------------


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (
            lambda x, y: (x.mean(), x.sum(), x.mean(0, keepdim=True), y.mean(-1), y.sum((0, 2), keepdim=True), y.mean((-3, -1))),
            [(7,), (3, 5, 6)],
        ),
        (
            lambda x, y: (x.mean((1, 3)), x.sum(-2), x.mean((0, 1, 2, 3, 4)), y.mean(-1), y.sum(-1, keepdim=True)),
            [(2, 3, 4, 5, 3), (2, 4096)],
        ),
    ],
    ids=["rank1_rank3_negative_dims", "rank5_4096_elements"],
)
def test_int8_sum_and_mean(fn, shapes):
    run = assert_quantized_close(Fn(fn), _inputs(*shapes))
    assert "REDUCE_SUM" in _ops(run)


def test_int8_cumsum():
    run = assert_quantized_close(Fn(lambda x, y: (torch.cumsum(x, 1), torch.cumsum(y, -1))), _inputs((2, 9, 3), (37,)))
    assert _ops(run).count("RESCALE") == 4  # each: centre the input, rescale the sums


# --- max / min style: values unchanged, indices exact -------------------------------------------


def test_int8_max_min_values_are_exact():
    fn = lambda x: (x.amax(-1), x.amin((0, 2), keepdim=True), x.max(), x.min(), x.max(1)[0], x.min(dim=-2, keepdim=True)[0])  # noqa: E731
    run = assert_quantized_close(Fn(fn), (_x(3, 4, 5),), max_lsb=0)
    assert "RESCALE" not in _ops(run)


def _indices(x):
    values, indices = x.min(-1)  # both results used: the values feed an argmax
    return x.argmax(1), x.argmin(-1, keepdim=True), x.argmax(), x.max(0).indices, indices, values.argmax(0)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_argmax_argmin_and_indices_are_exact(target):
    """Ties are likely on the integer grid: the first index must still win, as in torch."""
    got, want = _run_unquantized_outputs(_indices, (torch.round(_x(4, 6, 5)),), target)  # few distinct values
    assert len(got) == len(want) == 6
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


# --- resize and pixel shuffles -----------------------------------------------------------------------


def test_int8_nearest_resizes_and_pixel_shuffles_are_exact():
    fn = lambda x: (  # noqa: E731
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, size=(7, 9), mode="nearest"),
        F.interpolate(x, scale_factor=3, mode="nearest-exact"),
        F.pixel_shuffle(x, 2),
        F.pixel_unshuffle(x, 2),
    )
    run = assert_quantized_close(Fn(fn), (_x(1, 8, 4, 6),), max_lsb=0)
    assert _ops(run).count("RESIZE") == 3 and "RESCALE" not in _ops(run)


@pytest.mark.parametrize(
    "cases",
    [
        [(dict(scale_factor=2), (2, 3, 4, 5)), (dict(size=(7, 9), align_corners=True), (1, 2, 4, 5))],
        [(dict(scale_factor=(1.5, 3)), (1, 3, 4, 6)), (dict(size=(3, 4)), (1, 2, 6, 8))],  # fractional, downscale
    ],
    ids=["x2_align_corners", "fractional_down"],
)
def test_int8_bilinear(cases):
    def fn(*inputs):
        return tuple(F.interpolate(x, mode="bilinear", **kwargs) for x, (kwargs, _) in zip(inputs, cases))

    run = assert_quantized_close(Fn(fn), _inputs(*(shape for _, shape in cases)))
    assert _ops(run).count("RESIZE") == 2 and _ops(run).count("RESCALE") == 2  # shared parameters: no ADD
    assert "ADD" not in _ops(run)


class _OwnBilinearOutputQuantizer(TOSAQuantizer):
    """Quantizes bilinear's output with its own observer (the default shares the input's)."""

    def annotate(self, model):
        config = self.global_config
        for node in model.graph.nodes:
            if node.op == "call_function" and node.target == torch.ops.aten.upsample_bilinear2d.vec:
                annotate(node, {node.args[0]: config.input_activation}, config.output_activation)
        return super().annotate(model)


def test_int8_bilinear_with_its_own_output_parameters():
    """The weighted zero points are subtracted in int32, then one RESCALE to the new parameters."""
    quantizer = _OwnBilinearOutputQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    fn = Fn(lambda x: F.interpolate(x, scale_factor=(2, 3), mode="bilinear"))
    run = assert_quantized_close(fn, (_x(1, 3, 4, 5) + 1.0,), quantizer=quantizer)
    partition = run.result.report["partitions"][0]
    assert partition["inputs"][0]["scale"] != partition["outputs"][0]["scale"]
    assert partition["inputs"][0]["zero_point"] != 0 and "ADD" in partition["tosa_ops"]


# --- int16 (TOSA-1.0+INT+int16) ------------------------------------------------------------------------


def test_int16_exact_ops():
    fn = lambda x: (F.max_pool2d(x, 3, 2, 1, ceil_mode=True), x.amax((1, 3)), x.amin(0), F.interpolate(x, scale_factor=2))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (_x(2, 3, 8, 9),), INT16, max_lsb=0)
    assert run.result.report["partitions"][0]["inputs"][0]["dtype"] == "int16"


def test_int16_averaging_ops():
    """int16 accumulates in int48 (DEPTHWISE_CONV2D, RESIZE), narrowed to int32 exactly."""
    fn = lambda x, y: (  # noqa: E731
        F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        F.adaptive_avg_pool2d(x, (4, 3)),
        F.interpolate(x, scale_factor=2, mode="bilinear"),
        y.mean((1, 2)),
        y.sum(-1),
        y.mean(),
        torch.cumsum(y, 0),
    )
    run = assert_quantized_close(Fn(fn), _inputs((2, 3, 8, 9), (2, 33, 5)), INT16, max_lsb=INT16_ONE_LSB)
    assert _ops(run).count("DEPTHWISE_CONV2D") == 2 and _ops(run).count("RESIZE") == 1


# --- bool reductions and rejections -------------------------------------------------------------


def test_any_of_bool_input():
    got, want = _run_unquantized_outputs(lambda m: (m.any(1), m.any()), (_x(3, 4, 5) > 1.0,))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


def test_rejections_stay_on_cpu_with_reasons():
    reasons = _cpu_reasons(
        lambda x, y: (x.prod(1), x.any(0), F.adaptive_avg_pool2d(y, 3), F.max_pool2d(y, 2, return_indices=True)[1]),
        (_x(3, 4), _x(1, 2, 5, 7)),
    )
    assert reasons["aten.any.dim"] == "input dtype torch.float32 is not supported on the INT profile (bool only)"
    assert reasons["aten.prod.dim_int"] == "aten.prod.dim_int is not lowered for TOSA-1.0+INT"  # float-only REDUCE_PRODUCT
    assert "does not divide input size [5, 7] into equal windows" in reasons["aten._adaptive_avg_pool2d.default"]
    assert "indices output" in reasons["aten.max_pool2d_with_indices.default"]


def test_int16_sums_that_could_overflow_int32_stay_on_cpu():
    reasons = _cpu_reasons(lambda x: x.sum(-1), (_x(2, 70000),), INT16)
    assert reasons["aten.sum.dim_IntList"] == "the reduction adds 70000 int16 values, which can overflow the int32 accumulator"


def test_asymmetric_int16_stays_on_cpu():
    """TOSA RESCALE takes a non-zero zero point on int8 only: affine int16 sums are rejected."""
    activation = QuantizationSpec(
        dtype=torch.int16, quant_min=-32768, quant_max=32767, qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=MinMaxObserver,
    )
    quantizer = TOSAQuantizer(INT16).set_global(QuantizationConfig(activation, activation, None, None))
    reasons = _cpu_reasons(lambda x: x.mean(-1), (_x(3, 5) + 4.0,), INT16, quantizer)
    assert reasons["aten.mean.dim"].startswith("input is quantized to int16 with zero point ")
    assert reasons["aten.mean.dim"].endswith("TOSA rescales int16 with zero point 0 only")

