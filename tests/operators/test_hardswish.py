"""hardswish (lowered whole on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "hardswish" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch
import torch.nn.functional as F

from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact


def test_fp():
    """hardswish would decompose into several edge ops: it is lowered whole."""
    cases = activation_cases({"hardswish": F.hardswish})
    cases.add("hardswish on [0, 1)", F.hardswish, torch.rand(3, 4))
    run = cases.assert_close_to_torch()
    assert "aten.hardswish.default" in run.result.report["partitions"][0]["aten_ops"]


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"hardswish": F.hardswish})
