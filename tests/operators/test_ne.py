"""ne (TOSA EQUAL, negated), of floats, bools and int32 (composed exactly where the INT profile is absent).

INT: exact, 0 LSB (python/etarm/testing/comparison_checks.py says why).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "ne" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing import comparison_checks as checks
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    fns = {"ne": torch.ne, "ne_scalar": lambda a, b: torch.ne(a, 0.5), "ne_bool": lambda a, b: (a > 0) != (b > 0)}
    checks.comparison_cases(fns).assert_close_to_torch()


@pytest.mark.parametrize("target", checks.INT32_TARGETS)
def test_int32(target):
    checks.assert_int32_comparisons({"ne": torch.ne}, target)


@pytest.mark.parametrize("check, target", checks.QUANTIZED_CHECKS.values(), ids=checks.QUANTIZED_CHECKS)
def test_quantized(check, target):
    check(torch.ne, target)


def test_quantized_inequality_with_a_representable_number():
    """relu's zero is an exact integer (the zero point): ``!= 0`` fails on an interval of one."""
    torch.manual_seed(33)
    assert_quantized_close(Fn(lambda x: torch.relu(x) != 0), (torch.randn(3, 8),), max_lsb=0)
