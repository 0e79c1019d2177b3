"""sigmoid (TOSA SIGMOID on FP; a TABLE on INT).

The int8 sigmoid TABLE is built with torch's own quantize/dequantize, so it must match
exactly (0 LSB), with its fixed [0, 1] output range. The int16 TABLE interpolates 513
entries: bound 2 LSB (entry rounding + interpolation).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sigmoid" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.ethosu.quantizer import EthosUQuantizer
from etarm.quantizer import get_symmetric_a16w8_quantization_config
from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.unary_checks import math_cases, math_int32_input


def test_fp():
    cases = math_cases({"sigmoid": torch.sigmoid}, float16=True)
    cases.add("sigmoid of int32, promoted to float", torch.sigmoid, math_int32_input())
    cases.assert_close_to_torch()


def test_bfloat16_stays_on_cpu():
    reasons = cpu_reasons(torch.sigmoid, (torch.randn(4).bfloat16(),))
    assert any("aten.sigmoid.default on torch.bfloat16 needs the TOSA bf16 extension" in r for r in reasons), reasons


def _x(*shape, scale):
    torch.manual_seed(len(shape))
    return (torch.randn(shape) * scale,)


@pytest.mark.parametrize("shape, scale", [((2, 3, 9), 0.2), ((64,), 8.0)], ids=str)
def test_int8_sigmoid_table_is_exact(shape, scale):
    run = assert_quantized_close(Fn(torch.sigmoid), _x(*shape, scale=scale), max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TABLE"]
    output = run.result.report["partitions"][0]["outputs"][0]
    assert (output["scale"], output["zero_point"]) == (1 / 256, -128)  # fixed 0..1 range


def test_int16_sigmoid_interpolated_table():
    run = assert_quantized_close(Fn(torch.sigmoid), _x(3, 50, scale=4.0), target="TOSA-1.0+INT+int16", max_lsb=2)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TABLE", "RESCALE"]


@pytest.mark.parametrize("name", ["zeros", "randn"])
@pytest.mark.parametrize("fn", [torch.sigmoid, torch.tanh], ids=["sigmoid", "tanh"])
def test_int16_table_runs_on_u55(fn, name):
    """a16w8 on ethos-u55-128: the interpolated int16 TABLE is Vela's 16-bit look-up table, all
    on the NPU, also when calibrated on zeros only (issue 17's example)."""
    x = torch.zeros(1, 4, 8) if name == "zeros" else torch.randn(1, 4, 8, generator=torch.Generator().manual_seed(6))
    quantizer = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_a16w8_quantization_config())
    result = assert_all_on_npu(Fn(fn), (x,), "ethos-u55-128", quantizer=quantizer)
    assert "TABLE" in result.report["partitions"][0]["tosa_ops"]
