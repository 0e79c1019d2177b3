"""hardtanh and relu6 (TOSA CLAMP; an exact CLAMP after a RESCALE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "hardtanh" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch.nn.functional as F

from etarm.testing.unary_checks import activation_cases, assert_int8_clamps

HARDTANH = {"relu6": F.relu6, "hardtanh": lambda x: F.hardtanh(x, -2.0, 1.5)}


def test_fp():
    activation_cases(HARDTANH).assert_close_to_torch()


def test_int8_clamp():
    assert_int8_clamps(HARDTANH)
