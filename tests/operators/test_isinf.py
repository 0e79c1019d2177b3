"""isinf, of floats; of quantized values it is false everywhere.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "isinf" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.comparison_checks import QUANTIZED_TARGETS, comparison_cases
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    comparison_cases({"isinf": lambda a, b: torch.isinf(b)}).assert_close_to_torch()


@pytest.mark.parametrize("target", QUANTIZED_TARGETS)
def test_quantized(target):
    torch.manual_seed(37)
    _x, y = torch.randn(3, 8), torch.rand(3, 8)
    assert_quantized_close(Fn(lambda y: torch.isinf(y * 3)), (y,), target=target, max_lsb=0)
