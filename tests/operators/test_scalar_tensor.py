"""scalar_tensor: a 0-d compile-time constant.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "scalar_tensor" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.many_ops import assert_each_close_to_torch


def test_fp():
    torch.manual_seed(9)
    assert_each_close_to_torch({"scalar_tensor": lambda t: t + torch.scalar_tensor(3.0)}, (torch.randn(2, 3, 4),))
