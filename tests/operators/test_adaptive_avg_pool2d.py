"""adaptive_avg_pool2d: output sizes dividing the input into equal windows (an average
pool; global: a mean), other sizes by summing each window; on INT window sums and one
RESCALE (1 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "adaptive_avg_pool2d" rows of
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


@pytest.mark.parametrize(
    "output_size,shape",
    [((1, 1), (2, 3, 7, 9)), (2, (1, 4, 8, 6)), ((3, 1), (2, 3, 7, 8)), ((4, 5), (3, 8, 10)), ((7, 9), (1, 2, 7, 9))],
)
def test_adaptive_avg_pool2d(output_size, shape):
    torch.manual_seed(0)
    assert_close_to_torch(Fn(lambda x: F.adaptive_avg_pool2d(x, output_size)), (torch.randn(shape),))


# Windows of two sizes, overlapping windows, and outputs larger than the input (windows repeat
# elements): window sums per axis.
IRREGULAR = [(3, (1, 1, 5, 6)), ((10, 10), (1, 2, 7, 7)), ((3, 3), (1, 2, 1, 1)), ((2, 5), (3, 9, 4))]


@pytest.mark.parametrize("output_size,shape", IRREGULAR)
def test_irregular_windows(output_size, shape):
    torch.manual_seed(0)
    run = assert_close_to_torch(Fn(lambda x: F.adaptive_avg_pool2d(x, output_size)), (torch.randn(shape),))
    assert "AVG_POOL2D" not in run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize("output_size,shape", IRREGULAR)
def test_int8_irregular_windows(output_size, shape):
    run = assert_quantized_close(Fn(lambda y: F.adaptive_avg_pool2d(y, output_size)), (quantized_input(*shape),))
    assert "RESCALE" in tosa_ops(run)


def test_int16_irregular_windows():
    fn = Fn(lambda x: F.adaptive_avg_pool2d(x, (5, 3)))
    assert_quantized_close(fn, (quantized_input(2, 3, 7, 8),), INT16, max_lsb=INT16_ONE_LSB)


def test_int8():
    _x, y, z = quantized_inputs((2, 3, 13), (1, 4, 9, 8), (2, 16, 7, 7))
    fn = lambda y, z: (  # noqa: E731
        F.adaptive_avg_pool2d(y, (3, 2)),  # regular windows: an ordinary average pool
        F.adaptive_avg_pool2d(z, 1),  # global: a mean (REDUCE_SUM)
    )
    run = assert_quantized_close(Fn(fn), (y, z))
    assert tosa_ops(run).count("DEPTHWISE_CONV2D") == 1 and tosa_ops(run).count("REDUCE_SUM") == 1


def test_int8_averages_keeping_their_parameters_are_avg_pools():
    """EthosUQuantizer on U85 quantizes averages with their input's parameters: AVG_POOL2Ds.
    Ethos-U55 keeps separate parameters and the sums."""
    fn = Fn(lambda y: (F.adaptive_avg_pool2d(y, 1), F.adaptive_avg_pool2d(y, (1, 7))))  # a mean over height and width
    inputs = (quantized_input(2, 4, 5, 7, seed=1),)
    config = get_symmetric_quantization_config()
    run = assert_quantized_close(fn, inputs, quantizer=EthosUQuantizer("ethos-u85-256").set_global(config))
    assert tosa_ops(run).count("AVG_POOL2D") == 2
    run = assert_quantized_close(fn, inputs, quantizer=EthosUQuantizer("ethos-u55-128").set_global(config))
    assert "AVG_POOL2D" not in tosa_ops(run)


def test_int16():
    """int16 accumulates in int48 (DEPTHWISE_CONV2D), narrowed to int32 exactly."""
    x, _y = quantized_inputs((2, 3, 8, 9), (2, 33, 5))
    run = assert_quantized_close(Fn(lambda x: F.adaptive_avg_pool2d(x, (4, 3))), (x,), INT16, max_lsb=INT16_ONE_LSB)
    assert tosa_ops(run).count("DEPTHWISE_CONV2D") == 1
