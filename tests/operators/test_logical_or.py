"""logical_or (TOSA LOGICAL_OR), of bools and of float operands taken as bools.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "logical_or" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import comparison_cases


def test_fp():
    comparison_cases({"logical_or": lambda a, b: torch.logical_or(a, b)}).assert_close_to_torch()
