"""maximum (TOSA MAXIMUM), of floats and of int32 (exact near the int32 limits).

INT: 0 LSB, or 1 LSB with different parameters (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "maximum" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    assert_extremum_of_independent_operands,
    assert_extremum_of_shared_parameters,
    assert_int32_extrema_close,
    extremum_cases,
    rank0_operands,
)


def test_fp():
    cases = extremum_cases("maximum", torch.maximum)
    cases.add("maximum with a 0-d constant", lambda a: torch.maximum(a, torch.scalar_tensor(2.0)), rank0_operands()[0])
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_maximum(target):
    assert_int32_extrema_close({"max": torch.maximum}, target)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"])
def test_shared_parameters_are_exact(target):
    fn = lambda a, b: (torch.maximum(a, b), torch.max(a, b * 2))  # noqa: E731
    assert_extremum_of_shared_parameters(fn, "MAXIMUM", 2, target)


def test_int8_different_parameters():
    assert_extremum_of_independent_operands(torch.maximum, "aten.maximum.default")
