"""elu and selu (elu with selu's constants at the edge) (composed on FP; an int8 TABLE,
the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "elu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch.nn.functional as F

from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact, assert_int16_lookups


def test_fp():
    activation_cases({"elu": F.elu, "elu_alpha": lambda x: F.elu(x, alpha=0.3), "selu": F.selu}).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"elu": lambda x: F.elu(x, alpha=0.5), "selu": F.selu})


def test_int16_interpolated_table():
    assert_int16_lookups({"elu": (lambda x: F.elu(x, alpha=0.5), "TABLE", 2)})
