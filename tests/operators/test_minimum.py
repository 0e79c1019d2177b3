"""minimum (TOSA MINIMUM), of floats and of int32 (exact near the int32 limits).

INT: 0 LSB, or 1 LSB with different parameters (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "minimum" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    assert_extremum_of_independent_operands,
    assert_extremum_of_shared_parameters,
    assert_int32_extrema_close,
    extremum_cases,
    scalar_operand_input,
)


def test_fp():
    cases = extremum_cases("minimum", torch.minimum)
    cases.add("min_scalar_tensor", lambda a: torch.minimum(a, torch.tensor(0.5)), scalar_operand_input())
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_minimum(target):
    assert_int32_extrema_close({"min": torch.minimum}, target)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"])
def test_shared_parameters_are_exact(target):
    assert_extremum_of_shared_parameters(torch.minimum, "MINIMUM", 1, target)


def test_int8_different_parameters():
    assert_extremum_of_independent_operands(torch.minimum, "aten.minimum.default")
