"""gelu, exact and tanh-approximated (composed on FP; an int8 TABLE, the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "gelu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch
import torch.nn.functional as F

from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact, assert_int16_lookups

GELU = {"gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh")}


def test_fp():
    # Edge values without infinities: torch returns NaN for gelu(+inf) where the math (and TOSA) give inf.
    finite = {"gelu_finite": lambda t: F.gelu(torch.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0))}
    activation_cases(GELU, finite).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3=GELU)


def test_int16_interpolated_table():
    assert_int16_lookups({"gelu": (F.gelu, "TABLE", 2)})
