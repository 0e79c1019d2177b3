"""min: of a whole tensor, and along a dim (values and indices: TOSA REDUCE_MIN and ARGMAX of the negation).

INT: values 0 LSB, indices exact (python/etarm/testing/reduction_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "min" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.reduction_checks import INT16, assert_int8_moves_unchanged, assert_quantized_indices, extremum_cases


def test_fp():
    extremum_cases("min").assert_close_to_torch()


def test_int8_values_are_exact():
    assert_int8_moves_unchanged(lambda x: (x.min(), x.min(dim=-2, keepdim=True)[0]), 3, 4, 5)


def _indices(x):
    values, indices = x.min(-1)  # both results used: the values feed an argmax
    return indices, values.argmax(0)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(_indices, target)
