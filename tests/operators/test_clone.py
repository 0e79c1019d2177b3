"""clone (aten.clone / dim_order_ops._clone_dim_order): emits nothing, or the layout change it makes.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "clone" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.many_ops import assert_each_close_to_torch, assert_each_exact


def test_fp():
    x = torch.tensor([-2.7, -2.5, -1.5, -0.5, -0.0, 0.0, 0.4, 0.5, 1.5, 2.5, 2.7, 1000.9, -1e6])
    fns = {"clone_then_op": lambda t: t.clone() * 2, "op_then_clone": lambda t: (t * 3).clone()}
    assert_each_close_to_torch(fns, (x,))


def test_emits_nothing():
    fns = {"clone": lambda x: x.clone().permute(1, 0), "clone_as_output": lambda x: x[1:].clone()}
    result = assert_each_exact(fns, (torch.randn(3, 2),))
    assert sorted(result.report["partitions"][0]["tosa_ops"]) == ["SLICE", "TRANSPOSE"]
