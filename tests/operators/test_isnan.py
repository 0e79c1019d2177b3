"""isnan, of floats; of quantized values it is false everywhere.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "isnan" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.comparison_checks import QUANTIZED_TARGETS, comparison_cases
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    comparison_cases({"isnan": lambda a, b: torch.isnan(a)}).assert_close_to_torch()


@pytest.mark.parametrize("target", QUANTIZED_TARGETS)
def test_quantized(target):
    torch.manual_seed(37)
    assert_quantized_close(Fn(torch.isnan), (torch.randn(3, 8),), target=target, max_lsb=0)
