"""avg_pool2d: TOSA AVG_POOL2D on FP; on INT int32 window sums (a DEPTHWISE_CONV2D of
ones) and one RESCALE, 1 LSB; with the input's parameters (EthosUQuantizer, U85) an
AVG_POOL2D, rounding half up where torch rounds half to even.

A pool after a convolution keeps the NHWC layout: tests/operators/test_layout_cleanup.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "avg_pool2d" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, INT16_ONE_LSB, quantized_input, quantized_inputs
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.compiler import compile_model

# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, input shape)
AVG_POOL2D = [
    (2, None, 0, False, True, None, (2, 3, 8, 8)),
    (3, 2, 1, False, True, None, (2, 3, 7, 8)),
    (3, 2, 1, False, False, None, (2, 3, 7, 8)),
    (3, 2, 1, True, True, None, (1, 2, 8, 9)),
    (3, 2, 1, True, False, None, (1, 2, 8, 9)),
    ((2, 4), (3, 2), (1, 2), True, True, None, (2, 9, 10)),  # unbatched
    (3, 2, 1, True, True, 5, (1, 2, 8, 9)),
    (2, 2, 0, False, True, 3, (2, 3, 7, 7)),
    (3, 1, 1, False, False, None, (1, 1, 4, 5)),
]


@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,count_include_pad,divisor,shape", AVG_POOL2D)
def test_avg_pool2d(kernel, stride, padding, ceil_mode, count_include_pad, divisor, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor))
    run = assert_close_to_torch(fn, (torch.randn(shape),))
    assert "AVG_POOL2D" in run.result.report["partitions"][0]["tosa_ops"]


def test_float16():
    torch.manual_seed(0)
    # float16: both sides average in fp32, rounding to fp16 only at the end.
    fn = Fn(lambda x: F.avg_pool2d(x, 2, ceil_mode=True))
    assert_close_to_torch(fn, (torch.randn(1, 3, 7, 8).half(),), atol=1e-3, rtol=1e-3)


# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, input shape)
INT8_AVG_POOL2D = [
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


@pytest.mark.parametrize("cases", INT8_AVG_POOL2D, ids=["padding", "ceil_unbatched_override"])
def test_int8(cases):
    def fn(*inputs):
        return tuple(F.avg_pool2d(x, k, s, p, c, i, d) for x, (k, s, p, c, i, d, _) in zip(inputs, cases))

    run = assert_quantized_close(Fn(fn), quantized_inputs(*(case[-1] for case in cases)))
    assert tosa_ops(run).count("DEPTHWISE_CONV2D") == 3 and "AVG_POOL2D" not in tosa_ops(run)


def test_int8_averages_keeping_their_parameters_are_avg_pools():
    """EthosUQuantizer on U85 quantizes averages with their input's parameters: an unpadded
    one is an AVG_POOL2D; a padded pool still sums windows. Ethos-U55 keeps separate
    parameters and the sums."""
    fn = Fn(lambda x: (F.avg_pool2d(x, 2), F.avg_pool2d(x, 3, 1, 1)))  # the second with counted padding
    inputs = (torch.relu(quantized_input(1, 8, 8, 8)),)
    config = get_symmetric_quantization_config()
    run = assert_quantized_close(fn, inputs, quantizer=EthosUQuantizer("ethos-u85-256").set_global(config))
    assert tosa_ops(run).count("AVG_POOL2D") == 1 and tosa_ops(run).count("DEPTHWISE_CONV2D") == 1
    report = run.result.report["partitions"][0]
    assert report["outputs"][0]["scale"] == report["inputs"][0]["scale"]
    run = assert_quantized_close(fn, inputs, quantizer=EthosUQuantizer("ethos-u55-128").set_global(config))
    assert "AVG_POOL2D" not in tosa_ops(run)


def test_int16():
    """int16 accumulates in int48 (DEPTHWISE_CONV2D), narrowed to int32 exactly."""
    x, _y = quantized_inputs((2, 3, 8, 9), (2, 33, 5))
    fn = Fn(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False))
    run = assert_quantized_close(fn, (x,), INT16, max_lsb=INT16_ONE_LSB)
    assert tosa_ops(run).count("DEPTHWISE_CONV2D") == 1


# --- the FP extensions' floats (AVG_POOL2D: bf16 accumulates in FP32, fp8 in FP16) ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("kernel, stride, padding, count_include_pad", [(2, 2, 0, True), (3, 1, 1, False), (3, 2, 1, True)])
def test_extension_float_avg_pool2d(dtype, kernel, stride, padding, count_include_pad):
    x = (torch.rand(1, 3, 7, 6, generator=torch.Generator().manual_seed(6)) * 4 - 2).to(dtype)
    pool = Fn(lambda t: F.avg_pool2d(t, kernel, stride, padding, count_include_pad=count_include_pad))
    assert_extension_float_close(pool, (x,), dtype, scale=2.0)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_avg_pool2d_needs_its_extension(dtype):
    pool = Fn(lambda t: F.avg_pool2d(t, 2))
    assert_needs_extension(pool, (torch.ones(1, 2, 4, 4).to(dtype),), dtype, "aten.avg_pool2d.default")


def test_fp8_avg_pool2d_divisor_override_stays_on_cpu():
    pool = Fn(lambda t: F.avg_pool2d(t, 2, divisor_override=3))
    report = compile_model(pool, (torch.ones(1, 2, 4, 4).to(torch.float8_e4m3fn),), "TOSA-1.0+FP+fp8e4m3").report
    (entry,) = [e for e in report["cpu_ops"] if e["op"] == "aten.avg_pool2d.default"]
    assert "divisor_override on fp8" in entry["reason"]
