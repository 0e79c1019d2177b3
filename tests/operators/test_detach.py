"""detach: emits nothing (removed before lowering, or lowered to no TOSA op).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "detach" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.many_ops import assert_each_exact


def test_emits_nothing():
    result = assert_each_exact({"detach": lambda x: x.detach().permute(1, 0)}, (torch.randn(3, 2),))
    assert result.report["partitions"][0]["tosa_ops"] == ["TRANSPOSE"]
