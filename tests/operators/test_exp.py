"""exp (TOSA EXP on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "exp" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases, math_int32_input


def test_fp():
    cases = math_cases({"exp": torch.exp}, float16=True)
    cases.add("exp of int32, promoted to float", lambda t: torch.exp(t * 1), math_int32_input())
    cases.assert_close_to_torch()


def test_bfloat16_stays_on_cpu():
    reasons = cpu_reasons(torch.exp, (torch.randn(4).bfloat16(),))
    assert any("on torch.bfloat16 needs the TOSA bf16 extension" in r for r in reasons), reasons


def test_int8_table_is_exact():
    run = assert_int8_tables_exact(rank3={"exp": torch.exp}, scalar={"exp": torch.exp})
    assert run.tosa_outputs[1].shape == ()  # a 0-d input keeps its shape


def test_int16_exact_lookup():
    """exp is smooth, but in this calibration its top segment is too curved for the
    interpolated TABLE's 2 LSB: it takes the exact lookup."""
    assert_int16_lookups({"exp": (torch.exp, "GATHER", 0)})


def test_integer_input_stays_on_cpu():
    """A float function of an int32 tensor has no quantized input to look up."""
    fn = Fn(lambda x, i: (torch.exp(x), torch.exp(i)))
    result = compile_model(fn, (torch.randn(4), torch.arange(4, dtype=torch.int32)), "TOSA-1.0+INT", quantize=True)
    reasons = [e["reason"] for e in result.report["cpu_ops"] if e["op"] == "aten.exp.default"]
    assert len(reasons) == 1 and reasons[0].endswith("is not a float tensor, so it is not quantized"), reasons
