"""upsample_bilinear2d (TOSA RESIZE BILINEAR).

INT: with the input's parameters (the default) the weighted sums and one RESCALE (1 LSB);
with parameters of its own the weighted zero points are subtracted in int32 first.

An upsample after a convolution keeps the NHWC layout: tests/operators/test_layout_cleanup.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "upsample_bilinear2d" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.quantizers import OwnParameters
from etarm.testing.reduction_checks import INT16, INT16_ONE_LSB, quantized_input, quantized_inputs
from etarm.testing.tosa_reference import assert_close_to_torch

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


def test_large_downscale_stays_on_cpu():
    assert cpu_ops(lambda x: F.interpolate(x, size=(2, 5), mode="bilinear"), (torch.randn(1, 1, 40, 5),)) == [
        ("aten.upsample_bilinear2d.vec", "scale 2/40 is outside TOSA RESIZE's range (n <= 2048, downscale < 16x)")
    ]


@pytest.mark.parametrize(
    "cases",
    [
        [(dict(scale_factor=2), (2, 3, 4, 5)), (dict(size=(7, 9), align_corners=True), (1, 2, 4, 5))],
        [(dict(scale_factor=(1.5, 3)), (1, 3, 4, 6)), (dict(size=(3, 4)), (1, 2, 6, 8))],  # fractional, downscale
    ],
    ids=["x2_align_corners", "fractional_down"],
)
def test_int8(cases):
    def fn(*inputs):
        return tuple(F.interpolate(x, mode="bilinear", **kwargs) for x, (kwargs, _) in zip(inputs, cases))

    run = assert_quantized_close(Fn(fn), quantized_inputs(*(shape for _, shape in cases)))
    assert tosa_ops(run).count("RESIZE") == 2 and tosa_ops(run).count("RESCALE") == 2  # shared parameters: no ADD
    assert "ADD" not in tosa_ops(run)


def test_int8_with_its_own_output_parameters():
    """The weighted zero points are subtracted in int32, then one RESCALE to the new parameters."""
    quantizer = OwnParameters("TOSA-1.0+INT", "aten.upsample_bilinear2d.vec")
    fn = Fn(lambda x: F.interpolate(x, scale_factor=(2, 3), mode="bilinear"))
    run = assert_quantized_close(fn, (quantized_input(1, 3, 4, 5) + 1.0,), quantizer=quantizer)
    partition = run.result.report["partitions"][0]
    assert partition["inputs"][0]["scale"] != partition["outputs"][0]["scale"]
    assert partition["inputs"][0]["zero_point"] != 0 and "ADD" in partition["tosa_ops"]


def test_int16():
    """int16 accumulates in int48 (RESIZE), narrowed to int32 exactly."""
    x, _y = quantized_inputs((2, 3, 8, 9), (2, 33, 5))
    run = assert_quantized_close(
        Fn(lambda x: F.interpolate(x, scale_factor=2, mode="bilinear")), (x,), INT16, max_lsb=INT16_ONE_LSB
    )
    assert tosa_ops(run).count("RESIZE") == 1
