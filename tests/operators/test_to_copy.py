"""dtype conversions (aten._to_copy / dim_order_ops._to_dim_order_copy): TOSA CAST, float
to int truncating; int -> int needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "to_copy" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.binary_checks import rank0_operands
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.packed_cases import Cases


def test_fp():
    x = torch.tensor([-2.7, -2.5, -1.5, -0.5, -0.0, 0.0, 0.4, 0.5, 1.5, 2.5, 2.7, 1000.9, -1e6])
    fns = {
        "float_to_int32_truncates": lambda t: t.to(torch.int32),
        "float_to_int64": lambda t: t.long(),
        "float_to_bool": lambda t: t.bool(),
        "float_to_half": lambda t: t.half(),
        "half_to_float": lambda t: t.half().float(),
        "bool_to_float": lambda t: (t > 0).float(),
        "bool_to_int": lambda t: (t > 0).int(),
        "int_to_float": lambda t: t.int().float() * 0.5,
        "int_to_bool": lambda t: t.int().bool(),
        "int64_to_int32": lambda t: t.long().int(),
    }
    cases = Cases()
    for name, fn in fns.items():
        cases.add(name, fn, x)
    cases.add("rank-0 float_to_int32", lambda b: b.int(), rank0_operands()[1])
    cases.assert_close_to_torch()


def test_int_to_int_conversions_with_int_profile():
    x = torch.tensor([-100, -1, 0, 1, 100, 127], dtype=torch.int32)
    cases = Cases()
    cases.add("to_int8", lambda t: t.to(torch.int8), x).add("to_int16", lambda t: t.to(torch.int16), x)
    cases.add("to_bool", lambda t: t.bool(), x).assert_close_to_torch("TOSA-1.0+FP+INT")


def test_unsupported_conversions_stay_on_cpu():
    reasons = cpu_reasons(lambda t: t.to(torch.int8), (torch.tensor([1, 2, 3], dtype=torch.int32),))
    assert any("converting torch.int32 to torch.int8 needs the TOSA INT profile" in r for r in reasons), reasons
    reasons = cpu_reasons(lambda t: t.to(torch.bfloat16), (torch.randn(3),))
    assert any("conversion involving torch.bfloat16 is not supported" in r for r in reasons), reasons
