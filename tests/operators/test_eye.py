"""eye, square and rectangular: lowered whole as a constant (to_edge would rebuild it from arange at run time).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "eye" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.many_ops import assert_each_close_to_torch


def test_fp():
    torch.manual_seed(9)
    fns = {"eye": lambda t: t[0, :, :3] + torch.eye(3), "eye_rect": lambda t: t[0] + torch.eye(3, 4)}
    run = assert_each_close_to_torch(fns, (torch.randn(2, 3, 4),))
    ops = run.report["partitions"][0]["aten_ops"]
    assert "aten.eye.default" in ops and "aten.eye.m" in ops, ops
