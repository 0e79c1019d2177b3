"""upsample_nearest_exact2d (TOSA RESIZE NEAREST with half-pixel offsets; on INT exact, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "upsample_nearest_exact2d" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import quantized_input
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "kwargs,shape",
    [(dict(size=(7, 9)), (2, 3, 5, 6)), (dict(scale_factor=2), (1, 2, 5, 6)), (dict(size=(3, 4)), (1, 2, 7, 9))],
    ids=str,
)
def test_upsample_nearest_exact2d(kwargs, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.interpolate(x, mode="nearest-exact", **kwargs))
    run = assert_close_to_torch(fn, (torch.randn(shape),), atol=0, rtol=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TRANSPOSE", "RESIZE", "TRANSPOSE"]


def test_int8_is_exact():
    fn = Fn(lambda x: F.interpolate(x, scale_factor=3, mode="nearest-exact"))
    run = assert_quantized_close(fn, (quantized_input(1, 8, 4, 6),), max_lsb=0)
    assert tosa_ops(run).count("RESIZE") == 1 and "RESCALE" not in tosa_ops(run)
