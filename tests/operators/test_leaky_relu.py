"""leaky_relu (composed on FP; an int8 TABLE, the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "leaky_relu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch.nn.functional as F

from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact, assert_int16_lookups


def test_fp():
    fns = {
        "leaky_relu": F.leaky_relu,
        "leaky_relu_0": lambda x: F.leaky_relu(x, 0.0),
        "leaky_relu_steep": lambda x: F.leaky_relu(x, 1.5),
        "leaky_relu_negative": lambda x: F.leaky_relu(x, -0.2),
    }
    activation_cases(fns).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"leaky_relu": lambda x: F.leaky_relu(x, 0.2)})


def test_int16_interpolated_table():
    assert_int16_lookups({"leaky_relu": (lambda x: F.leaky_relu(x, 0.2), "TABLE", 2)})
