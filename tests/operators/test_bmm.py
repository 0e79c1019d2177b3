"""bmm (one TOSA MATMUL; on INT int32 accumulation and one RESCALE, 1 LSB; a16w8 2 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bmm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.matmul_checks import a16w8_operands, assert_a16w8_matmul, assert_int8_matmul, seeded_randn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.tosa_reference import assert_close_to_torch


def test_bmm_is_a_single_matmul():
    torch.manual_seed(1)
    run = assert_close_to_torch(Fn(torch.bmm), (torch.randn(3, 2, 5), torch.randn(3, 5, 4)))
    assert run.result.report["partitions"][0]["tosa_ops"] == ["MATMUL"]


def test_int8_bmm():
    run = assert_int8_matmul(torch.bmm, seeded_randn((2, 3, 4), (2, 4, 5), seed=7))
    assert tosa_ops(run) == ["MATMUL", "RESCALE"]


def test_a16w8_bmm():
    a, b, _c, _s = a16w8_operands()
    assert_a16w8_matmul(torch.bmm, (a, b))
