"""bitwise_and (&): of bools on FP; of integers TOSA BITWISE_AND, which needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "bitwise_and" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.comparison_checks import comparison_cases, int32_bitwise_operands
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.packed_cases import Cases


def test_fp_bools():
    comparison_cases({"bitwise_and_bool": lambda a, b: (a > 0) & (b > 0)}).assert_close_to_torch()


def test_int32_with_int_profile():
    a, b, _s = int32_bitwise_operands()
    Cases().add("bitwise_and", lambda x, y: x & y, a, b).assert_close_to_torch("TOSA-1.0+FP+INT")


def test_int32_needs_int_profile():
    a, b = torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([3, 2, 1], dtype=torch.int32)
    reasons = cpu_reasons(lambda x, y: x & y, (a, b))
    assert any("aten.bitwise_and.Tensor on torch.int32 needs the TOSA INT profile" in r for r in reasons), reasons
