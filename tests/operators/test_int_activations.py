"""relu / clamp / hardtanh (CLAMP on integers) and sigmoid (TABLE) on the TOSA INT profile.

CLAMP is exact: 1 LSB allowed only where a requantize precedes it. The int8 sigmoid
TABLE is built with torch's own quantize/dequantize, so it must match exactly (0 LSB).
The int16 TABLE interpolates 513 entries: bound 2 LSB (entry rounding + interpolation).
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def _x(*shape, scale=2.0):
    torch.manual_seed(len(shape))
    return (torch.randn(shape) * scale,)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: (torch.relu(x), torch.clamp(x, -1.0, 0.5), torch.clamp(x, min=0.25)),
        lambda x: (torch.clamp(x, max=-0.5), F.hardtanh(x, -2.0, 1.5), F.relu6(x)),
    ],
    ids=["relu_clamp", "clamp_max_hardtanh_relu6"],
)
def test_int8_clamps(fn):
    """Each activation quantized on its own: a RESCALE to its output range, then a CLAMP
    unless that range already lies within the bounds (then quantizing clips for free)."""
    run = assert_quantized_close(Fn(fn), _x(2, 3, 8))
    assert set(run.result.report["partitions"][0]["tosa_ops"]) <= {"RESCALE", "CLAMP"}


def test_relu_fused_into_add_costs_nothing():
    """add -> relu has no Q/DQ between: the add rescales straight into relu's [0, max] range."""
    run = assert_quantized_close(Fn(lambda x, y: torch.relu(x + y)), _x(4, 5) + _x(5))
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert "CLAMP" not in ops and ops.count("RESCALE") == 3 and ops.count("ADD") == 1
    assert run.result.report["partitions"][0]["outputs"][0]["zero_point"] == -128  # 0.0 is the lowest step


def test_clamp_fused_into_mul_clamps_in_integers():
    """The quantized range always includes 0, so a lower bound of 0.25 needs a real CLAMP."""
    run = assert_quantized_close(Fn(lambda x, y: torch.clamp(x * y, min=0.25)), _x(3, 7) + _x(7))
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops[-2:] == ["RESCALE", "CLAMP"] and ops.count("MUL") == 1


@pytest.mark.parametrize("shape, scale", [((2, 3, 9), 0.2), ((64,), 8.0)], ids=str)
def test_int8_sigmoid_table_is_exact(shape, scale):
    run = assert_quantized_close(Fn(torch.sigmoid), _x(*shape, scale=scale), max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TABLE"]
    output = run.result.report["partitions"][0]["outputs"][0]
    assert (output["scale"], output["zero_point"]) == (1 / 256, -128)  # fixed 0..1 range


def test_int16_sigmoid_interpolated_table():
    run = assert_quantized_close(Fn(torch.sigmoid), _x(3, 50, scale=4.0), target="TOSA-1.0+INT+int16", max_lsb=2)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TABLE", "RESCALE"]


def test_a16w8_relu_and_clamp():
    assert_quantized_close(
        Fn(lambda x: torch.clamp(torch.relu(x - 0.3), max=1.2)), _x(2, 16), target="TOSA-1.0+INT+int16"
    )
