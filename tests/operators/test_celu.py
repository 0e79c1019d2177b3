"""celu (composed on FP; an int8 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "celu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch.nn.functional as F

from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact


def test_fp():
    activation_cases({"celu": lambda x: F.celu(x, alpha=2.0)}).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"celu": lambda x: F.celu(x, alpha=0.7)})
