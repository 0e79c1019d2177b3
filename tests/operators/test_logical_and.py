"""logical_and (TOSA LOGICAL_AND), of bools, of int32 and float operands taken as bools.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "logical_and" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import comparison_cases, mixed_dtype_operands
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    cases = comparison_cases({"logical_and": lambda a, b: torch.logical_and(a > 0, b > 0)})
    cases.add("logical_and_int", lambda x, y: torch.logical_and(x, y), *mixed_dtype_operands())
    cases.assert_close_to_torch()


def test_quantized_logical_ops_of_comparisons():
    """logical_and and logical_not of comparisons of quantized tensors, selecting with where: exact."""
    torch.manual_seed(35)
    fn = lambda x, y: torch.where(torch.logical_and(x > 0, torch.logical_not(y > x)), x, y)  # noqa: E731
    assert_quantized_close(Fn(fn), (torch.randn(5, 6), torch.randn(5, 6)), max_lsb=0)
