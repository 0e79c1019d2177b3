"""upsample_nearest2d (TOSA RESIZE NEAREST; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "upsample_nearest2d" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, quantized_input
from etarm.testing.tosa_reference import assert_close_to_torch

NEAREST = [
    (dict(scale_factor=2), (2, 3, 5, 6)),
    (dict(scale_factor=(3, 1)), (1, 2, 4, 5)),
    (dict(size=(7, 9)), (2, 3, 5, 6)),  # non-integer ratios
    (dict(size=(3, 2)), (1, 3, 7, 6)),  # downscale
    (dict(scale_factor=1.5), (1, 2, 6, 4)),
    (dict(size=(5, 13)), (1, 1, 5, 4)),
]


@pytest.mark.parametrize("kwargs,shape", NEAREST, ids=str)
def test_upsample_nearest2d(kwargs, shape):
    torch.manual_seed(0)
    run = assert_close_to_torch(
        Fn(lambda x: F.interpolate(x, mode="nearest", **kwargs)), (torch.randn(shape),), atol=0, rtol=0
    )
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TRANSPOSE", "RESIZE", "TRANSPOSE"]


def test_nearest_that_rounds_differently_in_torch_stays_on_cpu():
    # torch computes the source row as floor(o * float32(26/22)), which differs from the exact ratio.
    assert cpu_ops(lambda x: F.interpolate(x, size=(22, 5)), (torch.randn(1, 1, 26, 5),)) == [
        ("aten.upsample_nearest2d.vec", "nearest resize 26 -> 22 rounds differently in torch's float32 arithmetic")
    ]


def test_int8_is_exact():
    fn = lambda x: (F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(7, 9), mode="nearest"))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (quantized_input(1, 8, 4, 6),), max_lsb=0)
    assert tosa_ops(run).count("RESIZE") == 2 and "RESCALE" not in tosa_ops(run)


def test_int16_is_exact():
    run = assert_quantized_close(
        Fn(lambda x: F.interpolate(x, scale_factor=2)), (quantized_input(2, 3, 8, 9),), INT16, max_lsb=0
    )
    assert run.result.report["partitions"][0]["inputs"][0]["dtype"] == "int16"
