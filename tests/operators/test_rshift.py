""">> (aten.__rshift__) of int32: by a constant on FP (a floor division); by a tensor TOSA
ARITHMETIC_RIGHT_SHIFT, which needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "rshift" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import int32_bitwise_operands, int32_shift_operands
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.packed_cases import Cases


def test_fp():
    x, _s = int32_shift_operands()
    cases = Cases().add("rshift_scalar", lambda a: a >> 3, x).add("rshift_1", lambda a: a >> 1, x)
    cases.add("rshift_31", lambda a: a >> 31, x).assert_close_to_torch()


def test_by_a_tensor_with_int_profile():
    a, _b, s = int32_bitwise_operands()
    Cases().add("rshift_tensor", lambda x, z: x >> z, a, s).assert_close_to_torch("TOSA-1.0+FP+INT")


def test_by_a_tensor_stays_on_cpu_on_fp():
    a, b = torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([3, 2, 1], dtype=torch.int32)
    reasons = cpu_reasons(lambda x, y: x >> y, (a, b))
    assert any("only int32 shifted by a constant is supported" in r for r in reasons), reasons
