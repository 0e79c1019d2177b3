"""cumsum: a scan of log2(n) shifted ADDs (FP); exact int32 sums and a RESCALE on INT (1 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "cumsum" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import (
    INT16,
    INT16_ONE_LSB,
    float16_input,
    one_dim_cases,
    quantized_inputs,
)
from etarm.testing.tosa_reference import assert_close_to_torch


def test_fp():
    cases = one_dim_cases({"cumsum": lambda x, dim, keepdim: x.cumsum(dim)})
    cases.add("cumsum(1) of float16", lambda x: x.cumsum(1), float16_input(), atol=2e-3, rtol=1e-3)
    run = cases.assert_close_to_torch()
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize(
    "shape,dim", [((1,), 0), ((2,), 0), ((33,), -1), ((3, 16, 2), 1), ((2, 2, 3, 2, 9), -1)], ids=str
)
def test_cumsum_lengths(shape, dim):
    """Scan steps at lengths 1, 2, powers of two and odd lengths; inf/-inf must not poison neighbours."""
    torch.manual_seed(4)
    x = torch.randn(shape)
    if x.numel() > 4:
        x.view(-1)[3] = float("inf")
    assert_close_to_torch(Fn(lambda x: x.cumsum(dim)), (x,))


def test_int32_stays_on_cpu():
    ints = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    (reason,) = [reason for op, reason in cpu_ops(lambda x: x.cumsum(0), (ints,)) if op.startswith("aten.cumsum")]
    assert "dtype torch.int32 is not supported" in reason


def test_int8():
    run = assert_quantized_close(
        Fn(lambda x, y: (torch.cumsum(x, 1), torch.cumsum(y, -1))), quantized_inputs((2, 9, 3), (37,))
    )
    assert tosa_ops(run).count("RESCALE") == 4  # each: centre the input, rescale the sums


def test_int16():
    """int16 accumulates in int32 exactly."""
    _x, y = quantized_inputs((2, 3, 8, 9), (2, 33, 5))
    assert_quantized_close(Fn(lambda y: torch.cumsum(y, 0)), (y,), INT16, max_lsb=INT16_ONE_LSB)
