"""linspace: lowered whole as a constant (to_edge would rebuild it from arange at run time).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "linspace" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.many_ops import assert_each_close_to_torch


def test_fp():
    torch.manual_seed(9)
    fns = {
        "linspace": lambda t: t + torch.linspace(-1.0, 1.0, 4),
        "linspace_odd": lambda t: t[0, 0, 0] + torch.linspace(0.1, 0.7, 7),
    }
    run = assert_each_close_to_torch(fns, (torch.randn(2, 3, 4),))
    assert "aten.linspace.default" in run.report["partitions"][0]["aten_ops"]
