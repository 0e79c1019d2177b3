"""<< (aten.__lshift__) of int32, by a number or a tensor (legal on FP: a product).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "lshift" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import int32_shift_operands
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.packed_cases import Cases


def test_fp():
    x, s = int32_shift_operands()
    Cases().add("lshift_scalar", lambda a: a << 3, x).add(
        "lshift_tensor", lambda a, b: a << b, x, s
    ).assert_close_to_torch()


def test_shift_beyond_31_stays_on_cpu():
    a, b = torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([3, 2, 1], dtype=torch.int32)
    reasons = cpu_reasons(lambda x, y: x << 40, (a, b), target="TOSA-1.0+FP+INT")
    assert any("shift amount 40 is outside [0, 31]" in r for r in reasons), reasons
