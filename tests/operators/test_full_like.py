"""full_like, zeros_like, ones_like: compile-time constants of the input's shape.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "full_like" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.many_ops import assert_each_close_to_torch


def test_fp():
    torch.manual_seed(9)
    fns = {
        "full_like": lambda t: torch.full_like(t, 7.0),
        "zeros_like": lambda t: torch.zeros_like(t) + 1,
        "ones_like_int": lambda t: torch.ones_like(t, dtype=torch.int32),
    }
    assert_each_close_to_torch(fns, (torch.randn(2, 3, 4),))
