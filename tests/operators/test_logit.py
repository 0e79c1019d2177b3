"""logit (lowered whole on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "logit" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_lowered_whole


def test_fp():
    """logit would decompose into several edge ops: it is lowered whole."""
    fns = {
        "logit": lambda x: torch.logit(torch.sigmoid(x)),
        "logit_eps": lambda x: torch.logit(torch.sigmoid(x), eps=0.05),
    }
    assert_lowered_whole("logit", fns, torch.logit)


def test_int8_table_is_exact():
    assert_int8_tables_exact(unit={"logit_eps": lambda x: torch.logit(x, eps=0.05)})
