"""logit (lowered whole on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "logit" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact


def test_fp():
    """logit would decompose into several edge ops: it is lowered whole."""
    fns = {
        "logit": lambda x: torch.logit(torch.sigmoid(x)),
        "logit_eps": lambda x: torch.logit(torch.sigmoid(x), eps=0.05),
    }
    cases = activation_cases(fns)
    cases.add("logit on [0, 1)", torch.logit, torch.rand(3, 4))
    run = cases.assert_close_to_torch()
    assert "aten.logit.default" in run.result.report["partitions"][0]["aten_ops"]


def test_int8_table_is_exact():
    assert_int8_tables_exact(unit={"logit_eps": lambda x: torch.logit(x, eps=0.05)})
