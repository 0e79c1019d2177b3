"""gt (TOSA GREATER), of floats, bools and int32 (composed exactly where the INT profile is absent).

INT: exact, 0 LSB (python/etarm/testing/comparison_checks.py says why).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "gt" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing import comparison_checks as checks
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.packed_cases import Cases


def test_fp():
    fns = {"gt": torch.gt, "gt_scalar": lambda a, b: torch.gt(a, 0.0)}
    checks.comparison_cases(fns).assert_close_to_torch()


@pytest.mark.parametrize("target", checks.INT32_TARGETS)
def test_int32(target):
    checks.assert_int32_comparisons({"gt": torch.gt, "gt_scalar": lambda x, y: x > 16777216}, target)


@pytest.mark.parametrize("check, target", checks.QUANTIZED_CHECKS.values(), ids=checks.QUANTIZED_CHECKS)
def test_quantized(check, target):
    check(torch.gt, target)


def test_mixed_dtypes_are_promoted():
    Cases().add("gt_int_float", lambda x, y: x > y, *checks.mixed_dtype_operands()).assert_close_to_torch()


def test_bool_operands_stay_on_cpu():
    reasons = cpu_reasons(lambda x, y: (x > 0) > (y > 0), (torch.randn(3), torch.randn(3)))
    assert any("aten.gt.Tensor does not support data type torch.bool" in r for r in reasons), reasons
