"""logical_xor (TOSA LOGICAL_XOR), of bools and of float operands taken as bools.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "logical_xor" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import comparison_cases


def test_fp():
    comparison_cases({"logical_xor": lambda a, b: torch.logical_xor(a > 0, b)}).assert_close_to_torch()
