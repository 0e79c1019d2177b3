"""relu (TOSA CLAMP; on INT an exact CLAMP, or nothing when fused into the producer's RESCALE).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "relu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.unary_checks import activation_cases, assert_int8_clamps


def test_fp():
    activation_cases({"relu": F.relu}).assert_close_to_torch()


def test_int32_stays_on_cpu():
    reasons = cpu_reasons(F.relu, (torch.arange(4, dtype=torch.int32),))
    assert any("aten.relu.default does not support data type torch.int32" in r for r in reasons), reasons


def test_int8_clamp():
    assert_int8_clamps({"relu": torch.relu})


def _x(*shape):
    torch.manual_seed(len(shape))
    return (torch.randn(shape) * 2.0,)


def test_relu_fused_into_add_costs_nothing():
    """add -> relu has no Q/DQ between: the add rescales straight into relu's [0, max] range."""
    run = assert_quantized_close(Fn(lambda x, y: torch.relu(x + y)), _x(4, 5) + _x(5))
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert "CLAMP" not in ops and ops.count("RESCALE") == 3 and ops.count("ADD") == 1
    assert run.result.report["partitions"][0]["outputs"][0]["zero_point"] == -128  # 0.0 is the lowest step


def test_a16w8_relu_and_clamp():
    assert_quantized_close(
        Fn(lambda x: torch.clamp(torch.relu(x - 0.3), max=1.2)), _x(2, 16), target="TOSA-1.0+INT+int16"
    )
