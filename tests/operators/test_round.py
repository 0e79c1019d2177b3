"""round and round(decimals=...) (composed on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "round" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.extension_floats import assert_extension_float_close
from etarm.testing.packed_cases import Cases
from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, math_cases


def test_fp():
    math_cases({"round": torch.round}, float16=True).assert_close_to_torch()


def test_fp_decimals():
    torch.manual_seed(3)
    x = torch.randn(4, 6) * 100
    cases = Cases()
    for d in (-2, -1, 1, 2, 3):
        cases.add(f"decimals={d}", lambda t, d=d: torch.round(t, decimals=d), x, atol=1e-4)
    cases.assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank4={"round": torch.round, "round_decimals": lambda x: torch.round(x, decimals=1)})


def test_int16_exact_lookup():
    """A step function: the interpolated TABLE cannot follow it."""
    assert_int16_lookups({"round_decimals": (lambda x: torch.round(x, decimals=1), "GATHER", 0)})


def test_bf16_halves_and_integral_values():
    """bf16 (TOSA-1.0+FP+bf16): halves round to even; from 2**7 on every bf16 is an integer
    (issue 17: round of bf16 crashed with KeyError DType.BF16); decimals scale in FP32."""
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 3.49, 127.0, 129.0, 255.0, -300.0, 1e30, 0.0]).to(torch.bfloat16)
    assert_extension_float_close(Fn(torch.round), (x,), torch.bfloat16)
    y = torch.tensor([-1.3047, 0.25, 0.35, 2.675, -0.05, 12.34]).to(torch.bfloat16)
    assert_extension_float_close(Fn(lambda t: torch.round(t, decimals=1)), (y,), torch.bfloat16)
