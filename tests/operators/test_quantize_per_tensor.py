"""quantize_per_tensor inside a partition: a requantize (TOSA RESCALE) where PT2E quantizes
a value again with other parameters; INT only (an FP graph never quantizes).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "quantize_per_tensor" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.quantized_reference import assert_quantized_close


def test_int8_requantize_of_a_concatenation():
    """cat's inputs share its parameters: the one with another range is quantized again."""
    torch.manual_seed(0)
    run = assert_quantized_close(
        Fn(lambda x, y: torch.cat([x, y * 4], dim=1)), (torch.randn(1, 4, 8), torch.randn(1, 4, 8))
    )
    assert "quantized_decomposed.quantize_per_tensor.default" in run.result.report["partitions"][0]["aten_ops"]


def test_fp_stays_on_cpu():
    quantize = lambda x: torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)  # noqa: E731
    reasons = cpu_reasons(quantize, (torch.randn(4),))
    assert any("is not lowered for TOSA-1.0+FP" in r for r in reasons), reasons
