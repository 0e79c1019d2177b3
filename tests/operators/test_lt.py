"""lt (TOSA GREATER, swapped), of floats, bools and int32 (composed exactly where the INT profile is absent).

INT: exact, 0 LSB (python/etarm/testing/comparison_checks.py says why).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "lt" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing import comparison_checks as checks


def test_fp():
    fns = {"lt": torch.lt, "lt_scalar": lambda a, b: torch.lt(a, 1.0)}
    checks.comparison_cases(fns).assert_close_to_torch()


@pytest.mark.parametrize("target", checks.INT32_TARGETS)
def test_int32(target):
    checks.assert_int32_comparisons({"lt": torch.lt}, target)


@pytest.mark.parametrize("check, target", checks.QUANTIZED_CHECKS.values(), ids=checks.QUANTIZED_CHECKS)
def test_quantized(check, target):
    check(torch.lt, target)
