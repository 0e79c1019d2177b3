"""mean (TOSA REDUCE_SUM and a product; on INT in int32 with one RESCALE, 1 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "mean" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
from torchao.quantization.pt2e import MinMaxObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from etarm.compiler import compile_model
from etarm.quantization.quantization_config import QuantizationConfig, get_symmetric_quantization_config
from etarm.quantizer import EthosUQuantizer, TOSAQuantizer
from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, INT16_ONE_LSB, quantized_input, quantized_inputs, reduction_cases
from etarm.testing.tosa_reference import assert_close_to_torch


def test_fp():
    run = reduction_cases("mean", float16_dim=0).assert_close_to_torch()
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


def test_multi_axis_reduction_is_one_reduce_per_run_of_axes():
    """Adjacent reduced axes merge through a RESHAPE: mean over 3 adjacent dims is one REDUCE_SUM."""
    run = assert_close_to_torch(Fn(lambda x: x.mean((1, 2, 3))), (torch.randn(2, 3, 4, 5, 2),))
    assert run.result.report["partitions"][0]["tosa_ops"].count("REDUCE_SUM") == 1


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x, y: (x.mean(), x.mean(0, keepdim=True), y.mean(-1), y.mean((-3, -1))), [(7,), (3, 5, 6)]),
        (lambda x, y: (x.mean((1, 3)), x.mean((0, 1, 2, 3, 4)), y.mean(-1)), [(2, 3, 4, 5, 3), (2, 4096)]),
    ],
    ids=["rank1_rank3_negative_dims", "rank5_4096_elements"],
)
def test_int8(fn, shapes):
    run = assert_quantized_close(Fn(fn), quantized_inputs(*shapes))
    assert "REDUCE_SUM" in tosa_ops(run)


def test_int8_mean_keeping_its_parameters_is_an_avg_pool():
    """EthosUQuantizer on U85 quantizes a mean over height and width with its input's
    parameters: an AVG_POOL2D. Ethos-U55 keeps separate parameters and the sums."""
    y = quantized_input(2, 4, 5, 7, seed=1)
    config = get_symmetric_quantization_config()
    fn = Fn(lambda y: y.mean((2, 3), keepdim=True))
    run = assert_quantized_close(fn, (y,), quantizer=EthosUQuantizer("ethos-u85-256").set_global(config))
    assert tosa_ops(run).count("AVG_POOL2D") == 1
    run = assert_quantized_close(fn, (y,), quantizer=EthosUQuantizer("ethos-u55-128").set_global(config))
    assert "AVG_POOL2D" not in tosa_ops(run)


def test_int16():
    """int16 accumulates in int48, narrowed to int32 exactly."""
    _x, y = quantized_inputs((2, 3, 8, 9), (2, 33, 5))
    assert_quantized_close(Fn(lambda y: (y.mean((1, 2)), y.mean())), (y,), INT16, max_lsb=INT16_ONE_LSB)


def test_asymmetric_int16_stays_on_cpu():
    """TOSA RESCALE takes a non-zero zero point on int8 only: affine int16 sums are rejected."""
    activation = QuantizationSpec(
        dtype=torch.int16, quant_min=-32768, quant_max=32767, qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=MinMaxObserver,
    )  # fmt: skip
    quantizer = TOSAQuantizer(INT16).set_global(QuantizationConfig(activation, activation, None, None))
    report = compile_model(
        Fn(lambda x: x.mean(-1)), (quantized_input(3, 5) + 4.0,), INT16, quantize=True, quantizer=quantizer
    ).report
    reasons = {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}
    assert reasons["aten.mean.dim"].startswith("input is quantized to int16 with zero point ")
    assert reasons["aten.mean.dim"].endswith("TOSA rescales int16 with zero point 0 only")
