"""upsample_nearest2d / upsample_bilinear2d (TOSA RESIZE) and pixel_shuffle / pixel_unshuffle."""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_ops
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
    run = assert_close_to_torch(Fn(lambda x: F.interpolate(x, mode="nearest", **kwargs)), (torch.randn(shape),), atol=0, rtol=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TRANSPOSE", "RESIZE", "TRANSPOSE"]


@pytest.mark.parametrize(
    "kwargs,shape", [(dict(size=(7, 9)), (2, 3, 5, 6)), (dict(scale_factor=2), (1, 2, 5, 6)), (dict(size=(3, 4)), (1, 2, 7, 9))], ids=str
)
def test_upsample_nearest_exact2d(kwargs, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.interpolate(x, mode="nearest-exact", **kwargs))
    run = assert_close_to_torch(fn, (torch.randn(shape),), atol=0, rtol=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["TRANSPOSE", "RESIZE", "TRANSPOSE"]


BILINEAR = [
    (dict(scale_factor=2), (2, 3, 5, 6)),
    (dict(size=(7, 13)), (1, 3, 5, 6)),
    (dict(size=(3, 4)), (2, 2, 7, 9)),  # downscale
    (dict(scale_factor=1.5), (1, 2, 5, 6)),
    (dict(scale_factor=(0.5, 3)), (1, 2, 8, 3)),
    (dict(size=(7, 13), align_corners=True), (1, 3, 5, 6)),
    (dict(scale_factor=2, align_corners=True), (2, 2, 4, 7)),
    (dict(size=(3, 1), align_corners=True), (1, 2, 9, 5)),  # one output column reads column 0
    (dict(size=(4, 5), align_corners=True), (1, 2, 1, 1)),  # 1x1 input
]


@pytest.mark.parametrize("kwargs,shape", BILINEAR, ids=str)
def test_upsample_bilinear2d(kwargs, shape):
    torch.manual_seed(0)
    fn = Fn(lambda x: F.interpolate(x, mode="bilinear", **kwargs))
    run = assert_close_to_torch(fn, (torch.randn(shape),))
    assert "RESIZE" in run.result.report["partitions"][0]["tosa_ops"]


def test_upsample_after_conv_keeps_channels_last():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Upsample(scale_factor=2, mode="bilinear"), torch.nn.Conv2d(4, 2, 1))
    run = assert_close_to_torch(model, (torch.randn(1, 3, 5, 6),), atol=1e-4, rtol=1e-4)
    assert run.result.report["partitions"][0]["tosa_ops"].count("TRANSPOSE") == 2


def test_nearest_that_rounds_differently_in_torch_stays_on_cpu():
    # torch computes the source row as floor(o * float32(26/22)), which differs from the exact ratio.
    assert cpu_ops(lambda x: F.interpolate(x, size=(22, 5)), (torch.randn(1, 1, 26, 5),)) == [
        ("aten.upsample_nearest2d.vec", "nearest resize 26 -> 22 rounds differently in torch's float32 arithmetic")
    ]


def test_large_downscale_stays_on_cpu():
    assert cpu_ops(lambda x: F.interpolate(x, size=(2, 5), mode="bilinear"), (torch.randn(1, 1, 40, 5),)) == [
        ("aten.upsample_bilinear2d.vec", "scale 2/40 is outside TOSA RESIZE's range (n <= 2048, downscale < 16x)")
    ]


@pytest.mark.parametrize("factor,shape", [(2, (2, 8, 5, 6)), (3, (9, 4, 5)), (2, (2, 3, 4, 3, 3))])
def test_pixel_shuffle(factor, shape):
    torch.manual_seed(0)
    run = assert_close_to_torch(Fn(lambda x: F.pixel_shuffle(x, factor)), (torch.randn(shape),), atol=0, rtol=0)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["RESHAPE", "TRANSPOSE", "RESHAPE"]


@pytest.mark.parametrize("factor,shape", [(2, (2, 2, 6, 4)), (3, (1, 6, 9)), (2, (2, 1, 3, 4, 6))])
def test_pixel_unshuffle(factor, shape):
    torch.manual_seed(0)
    assert_close_to_torch(Fn(lambda x: F.pixel_unshuffle(x, factor)), (torch.randn(shape),), atol=0, rtol=0)


def test_pixel_shuffle_int32():
    x = torch.arange(2 * 8 * 3 * 3, dtype=torch.int32).reshape(2, 8, 3, 3)
    assert_close_to_torch(Fn(lambda x: F.pixel_shuffle(x, 2)), (x,), atol=0, rtol=0)
