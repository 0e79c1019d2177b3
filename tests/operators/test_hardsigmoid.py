"""hardsigmoid (lowered whole on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "hardsigmoid" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch.nn.functional as F

from etarm.testing.unary_checks import assert_int8_tables_exact, assert_lowered_whole


def test_fp():
    """hardsigmoid would decompose into several edge ops: it is lowered whole."""
    assert_lowered_whole("hardsigmoid", {"hardsigmoid": F.hardsigmoid}, F.hardsigmoid)


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"hardsigmoid": F.hardsigmoid})
