"""group_norm (aten.native_group_norm), lowered whole.

INT: exact integer statistics and a Newton rsqrt, as layer_norm (test_native_layer_norm.py):
1 LSB. Every partition is also compiled by Vela.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "native_group_norm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, INT16, Norms, check_with_vela, seeded
from etarm.testing.random_parameters import randomize
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "shape,groups,affine",
    [((2, 6, 5), 3, True), ((2, 4, 3, 3), 1, True), ((1, 6, 2, 3, 2), 6, True), ((3, 4, 7), 2, False)],
    ids=str,
)
def test_group_norm(shape, groups, affine):
    torch.manual_seed(2)
    module = randomize(torch.nn.GroupNorm(groups, shape[1], affine=affine))
    assert_close_to_torch(module, (torch.randn(shape) * 2 - 1,))


def test_native_group_norm_mean_and_rstd_results():
    torch.manual_seed(3)
    weight, bias = torch.randn(6), torch.randn(6)
    fn = lambda x: torch.native_group_norm(x, weight, bias, 2, 6, 12, 3, 1e-4)  # noqa: E731
    assert_close_to_torch(Fn(fn), (torch.randn(2, 6, 3, 4),))


def test_float16():
    """FP16 statistics are computed in FP32 like torch on CPU; tolerance ~ one FP16 rounding."""
    torch.manual_seed(7)
    module = randomize(torch.nn.GroupNorm(2, 4))
    assert_close_to_torch(module.half().eval(), ((torch.randn(3, 4, 8) * 2).half(),), atol=4e-3, rtol=2e-3)


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    """2 groups of 3 channels with affine, one group (layer norm over C, H, W), one channel each."""
    module = Norms(torch.nn.GroupNorm(2, 6), torch.nn.GroupNorm(1, 4), torch.nn.GroupNorm(4, 4, affine=False))
    check_with_vela(module, (seeded(2, 6, 3, 5), seeded(1, 4, 5, 5, scale=0.5), seeded(2, 4, 7)), target, tmp_path)
