"""argmax (TOSA ARGMAX; int32 indices, where torch's are int64).

INT: the indices match exactly, the first of ties winning as in torch.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "argmax" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_ops
from etarm.testing.reduction_checks import INT16, assert_quantized_indices, index_cases


def test_fp():
    run = index_cases("argmax").assert_close_to_torch()
    assert "ARGMAX" in run.result.report["partitions"][0]["tosa_ops"]


def test_int32_stays_on_cpu():
    ints = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    (reason,) = [reason for op, reason in cpu_ops(lambda x: x.argmax(1), (ints,)) if op.startswith("aten.argmax")]
    assert "dtype torch.int32 is not supported" in reason


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(lambda x: (x.argmax(1), x.argmax()), target)
