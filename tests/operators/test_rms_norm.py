"""rms_norm, lowered whole.

INT: exact integer sums of squares and a Newton rsqrt, as layer_norm
(test_native_layer_norm.py): 1 LSB. Every partition is also compiled by Vela.

The split for Ethos-U55: tests/passes/test_split_composites.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "rms_norm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.quantized_composites import INT8, INT16, Norms, check_with_vela, seeded
from etarm.testing.random_parameters import randomize
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "shape,normalized,eps,affine",
    [
        ((5,), 1, 1e-6, True),
        ((2, 3, 4), 2, None, True),
        ((2, 1, 3, 8), 1, 1e-2, False),
        ((1, 2, 2, 3, 5), 3, None, True),
    ],
    ids=str,
)
def test_rms_norm_is_lowered_whole(shape, normalized, eps, affine):
    torch.manual_seed(6)
    module = randomize(torch.nn.RMSNorm(shape[-normalized:], eps=eps, elementwise_affine=affine))
    run = assert_close_to_torch(module, (torch.randn(shape) * 2,))
    assert run.result.report["partitions"][0]["aten_ops"] == ["aten.rms_norm.default"]


def test_float16():
    """FP16 statistics are computed in FP32 like torch on CPU; tolerance ~ one FP16 rounding."""
    torch.manual_seed(7)
    module = randomize(torch.nn.RMSNorm(8))
    assert_close_to_torch(module.half().eval(), ((torch.randn(3, 4, 8) * 2).half(),), atol=4e-3, rtol=2e-3)


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    module = Norms(torch.nn.RMSNorm(16), torch.nn.RMSNorm((3, 5), eps=1e-3, elementwise_affine=False))
    check_with_vela(module, (seeded(3, 16) + 1.0, seeded(2, 3, 5, scale=0.3)), target, tmp_path)
