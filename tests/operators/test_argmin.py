"""argmin (TOSA ARGMAX of the negation; int32 indices, where torch's are int64).

INT: the indices match exactly, the first of ties winning as in torch.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "argmin" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.reduction_checks import INT16, assert_quantized_indices, float16_input, index_cases


def test_fp():
    cases = index_cases("argmin")
    cases.add("argmin(1) of float16", lambda x: x.argmin(1), float16_input())
    run = cases.assert_close_to_torch()
    assert "ARGMAX" in run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(lambda x: x.argmin(-1, keepdim=True), target)
