"""softplus (lowered whole on FP; an int8 TABLE, an exact int16 GATHER on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "softplus" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch.nn.functional as F

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_int16_lookups, assert_lowered_whole

SOFTPLUS = lambda x: F.softplus(x, beta=2.0, threshold=3.0)  # noqa: E731


def test_fp():
    """softplus would decompose into several edge ops: it is lowered whole."""
    fns = {"softplus": F.softplus, "softplus_beta": lambda x: F.softplus(x, beta=2.0, threshold=4.0)}
    assert_lowered_whole("softplus", fns, F.softplus)


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"softplus": SOFTPLUS})


def test_int16_exact_lookup():
    """The threshold makes a jump of ~130 output steps: the interpolated TABLE cannot follow it."""
    assert_int16_lookups({"softplus": (SOFTPLUS, "GATHER", 0)})
