"""cat (cat and stack: TOSA CONCAT; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "cat" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.data_movement_checks import DTYPE_TARGETS, assert_dtypes_move_exactly, exact_cases
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.testing.cpu_fallback import Fn
import torch.nn.functional as F


def test_fp():
    inputs = (torch.randn(3), torch.randn(1), torch.randn(2, 3, 4), torch.randn(2, 1, 4), torch.randn(1, 2, 1, 3, 2))
    fns = {
        "rank1": lambda a, b, c, d, e: torch.cat([a, b, a]),
        "rank3_negative_dim": lambda a, b, c, d, e: torch.cat([c, d, c], -2),
        "rank3_dim0": lambda a, b, c, d, e: torch.cat([c, c]),
        "rank5_last": lambda a, b, c, d, e: torch.cat([e, e[..., :1]], 4),
        "stack": lambda a, b, c, d, e: torch.stack([c, c]),
        "stack_-1": lambda a, b, c, d, e: torch.stack([d, d, d], -1),
        "stack_one": lambda a, b, c, d, e: torch.stack([a], 1),
    }
    exact_cases(fns, *inputs).assert_close_to_torch()


@pytest.mark.parametrize("target", DTYPE_TARGETS)
def test_dtypes(target):
    assert_dtypes_move_exactly(lambda x: torch.cat([x, x[:, :1]], 1), target)


# --- the FP extensions' floats: CONCAT, SLICE, PAD, TILE, REVERSE and RESHAPE move bf16 and fp8 ---


def _layout_chain(a, b):
    joined = torch.cat([a, b], dim=1)
    return F.pad(joined[:, 1:4].flip(0).repeat(1, 1, 2), (1, 0)).reshape(-1)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_data_layout(dtype):
    gen = torch.Generator().manual_seed(9)
    a, b = ((torch.rand(2, 3, 2, generator=gen) * 4 - 2).to(dtype) for _ in range(2))
    assert_extension_float_close(Fn(_layout_chain), (a, b), dtype)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_cat_needs_its_extension(dtype):
    a = torch.ones(2, 3).to(dtype)
    assert_needs_extension(Fn(lambda x, y: torch.cat([x, y])), (a, a), dtype, "aten.cat.default")
