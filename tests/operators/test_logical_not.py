"""logical_not (TOSA LOGICAL_NOT), of bools and of float operands taken as bools.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "logical_not" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import comparison_cases


def test_fp():
    comparison_cases({"logical_not": lambda a, b: torch.logical_not(a)}).assert_close_to_torch()
