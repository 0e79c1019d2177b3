"""mm (TOSA MATMUL; on INT int32 accumulation and one RESCALE, 1 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "mm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.matmul_checks import assert_int8_matmul, seeded_randn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((9, 1), (1, 3))], ids=str)
def test_mm(shapes):
    torch.manual_seed(0)
    run = assert_close_to_torch(Fn(torch.mm), tuple(torch.randn(s) for s in shapes))
    assert tosa_ops(run).count("MATMUL") == 1


def test_float16_accumulates_in_float32():
    """MATMUL writes FP32 and casts once, as torch accumulates half products in float on CPU."""
    torch.manual_seed(10)
    x, y = torch.randn(5, 32), torch.randn(32, 7)
    run = assert_close_to_torch(Fn(torch.mm), (x.half(), y.half()), atol=2e-3, rtol=2e-3)
    assert "CAST" in tosa_ops(run)


def test_int8_mm():
    assert_int8_matmul(torch.mm, seeded_randn((3, 4), (4, 5), seed=7))
