"""max: of a whole tensor, and along a dim (values and indices: TOSA REDUCE_MAX and ARGMAX).

INT: values 0 LSB, indices exact (python/etarm/testing/reduction_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "max" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.reduction_checks import INT16, assert_int8_moves_unchanged, assert_quantized_indices, extremum_cases


def test_fp():
    extremum_cases("max").assert_close_to_torch()


def test_int8_values_are_exact():
    assert_int8_moves_unchanged(lambda x: (x.max(), x.max(1)[0]), 3, 4, 5)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(lambda x: x.max(0).indices, target)
