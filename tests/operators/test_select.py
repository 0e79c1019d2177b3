"""select (TOSA SLICE and RESHAPE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "select" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.data_movement_checks import exact_cases


def test_fp():
    fns = {
        "first_axis": lambda x, v: x[1],
        "negative_index": lambda x, v: x[-1],
        "axis1": lambda x, v: x[:, 0],
        "axis1_negative": lambda x, v: x[:, -2],
        "last_axis": lambda x, v: x[..., 4],
        "negative_dim_and_index": lambda x, v: x.select(-1, -5),
        "two_axes": lambda x, v: x[2, 3],
        "to_0d": lambda x, v: v[3],
        "to_0d_negative": lambda x, v: v[-1],
    }
    exact_cases(fns, torch.randn(3, 4, 5), torch.randn(5)).assert_close_to_torch()
