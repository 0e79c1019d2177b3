"""bmm (one TOSA MATMUL; on INT int32 accumulation and one RESCALE, 1 LSB; a16w8 2 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bmm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch


def test_bmm_is_a_single_matmul():
    torch.manual_seed(1)
    run = assert_close_to_torch(Fn(torch.bmm), (torch.randn(3, 2, 5), torch.randn(3, 5, 4)))
    assert run.result.report["partitions"][0]["tosa_ops"] == ["MATMUL"]


def test_int8_bmm():
    torch.manual_seed(7)
    run = assert_quantized_close(Fn(torch.bmm), (torch.randn(2, 3, 4), torch.randn(2, 4, 5)))
    assert run.result.report["partitions"][0]["tosa_ops"] == ["MATMUL", "RESCALE"]


def test_a16w8_bmm():
    torch.manual_seed(10)
    inputs = (torch.randn(2, 3, 4), torch.randn(2, 4, 5))
    run = assert_quantized_close(Fn(torch.bmm), inputs, target="TOSA-1.0+INT+int16", max_lsb=2)
    assert run.result.report["partitions"][0]["tosa_ops"].count("MATMUL") == 1
