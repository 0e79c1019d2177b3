"""aten.convolution (1-D/2-D/3-D, grouped, depthwise, transposed) on the TOSA FP profile,
and the NCHW <-> NHWC layout: TRANSPOSEs only at the ends of a chain of spatial ops.

Tolerance 1e-4: the reference model and torch's CPU kernels sum the FP32 products of
each output in a different order (tens to hundreds of terms per output).
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.tosa_reference import assert_close_to_torch

TOL = dict(atol=1e-4, rtol=1e-4)


def tosa_ops(run) -> list[str]:
    return run.result.report["partitions"][0]["tosa_ops"]


# (in_channels, out_channels, kernel, stride, padding, dilation, groups, bias, input shape)
CONV2D = [
    (3, 4, 3, 1, 1, 1, 1, True, (2, 3, 7, 8)),
    (3, 5, (3, 2), (2, 1), (1, 0), 1, 1, False, (1, 3, 8, 9)),  # stride 2 over an even size: a cropped row
    (4, 6, 3, 2, 0, 2, 1, True, (2, 4, 11, 10)),  # dilated
    (4, 6, 5, 3, 2, 1, 2, True, (1, 4, 13, 12)),  # groups=2
    (6, 6, 3, 1, 1, 1, 6, True, (2, 6, 9, 7)),  # depthwise
    (4, 8, (1, 3), 2, (0, 1), (1, 2), 4, False, (1, 4, 6, 9)),  # depthwise, multiplier 2, dilated
    (6, 9, 1, 1, 0, 1, 3, True, (3, 6, 5, 5)),  # pointwise, groups=3
    (2, 3, 4, 4, 3, 1, 1, True, (1, 2, 5, 6)),  # padding shrinks to fit the stride
]


@pytest.mark.parametrize("cin,cout,kernel,stride,padding,dilation,groups,bias,shape", CONV2D)
def test_conv2d(cin, cout, kernel, stride, padding, dilation, groups, bias, shape):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(cin, cout, kernel, stride, padding, dilation, groups, bias)
    run = assert_close_to_torch(conv, (torch.randn(shape),), **TOL)
    # Constant weights are rearranged at compile time: only the input/output layout transposes remain.
    assert tosa_ops(run).count("TRANSPOSE") == 2


@pytest.mark.parametrize(
    "cin,cout,kernel,stride,padding,dilation,groups,shape",
    [(3, 4, 3, 1, 1, 1, 1, (2, 3, 10)), (4, 6, 4, 3, 2, 2, 2, (1, 4, 17)), (4, 4, 3, 2, 0, 1, 4, (2, 4, 8))],
)
def test_conv1d(cin, cout, kernel, stride, padding, dilation, groups, shape):
    torch.manual_seed(0)
    conv = torch.nn.Conv1d(cin, cout, kernel, stride, padding, dilation, groups)
    assert_close_to_torch(conv, (torch.randn(shape),), **TOL)


@pytest.mark.parametrize(
    "cin,cout,kernel,stride,padding,dilation,groups,shape",
    [(3, 4, 3, 1, 1, 1, 1, (2, 3, 5, 6, 7)), (4, 4, (2, 3, 1), (2, 1, 2), (1, 0, 0), (1, 2, 1), 2, (1, 4, 6, 7, 5))],
)
def test_conv3d(cin, cout, kernel, stride, padding, dilation, groups, shape):
    torch.manual_seed(0)
    conv = torch.nn.Conv3d(cin, cout, kernel, stride, padding, dilation, groups)
    run = assert_close_to_torch(conv, (torch.randn(shape),), **TOL)
    assert "CONV3D" in tosa_ops(run)


# (in_channels, out_channels, kernel, stride, padding, output_padding, dilation, groups, bias, input shape)
CONV_TRANSPOSE2D = [
    (4, 6, 3, 2, 1, 1, 1, 1, True, (2, 4, 5, 6)),
    (3, 2, (2, 3), (2, 1), 0, 0, 1, 1, False, (1, 3, 4, 5)),
    (4, 4, 3, 1, 1, 0, 2, 2, True, (1, 4, 5, 5)),  # dilated, grouped
    (2, 3, 2, 3, 2, (2, 1), 1, 1, True, (1, 2, 4, 3)),  # padding >= kernel: cropped after
]


@pytest.mark.parametrize("cin,cout,kernel,stride,padding,output_padding,dilation,groups,bias,shape", CONV_TRANSPOSE2D)
def test_conv_transpose2d(cin, cout, kernel, stride, padding, output_padding, dilation, groups, bias, shape):
    torch.manual_seed(0)
    conv = torch.nn.ConvTranspose2d(cin, cout, kernel, stride, padding, output_padding, groups, bias, dilation)
    run = assert_close_to_torch(conv, (torch.randn(shape),), **TOL)
    assert "TRANSPOSE_CONV2D" in tosa_ops(run)


def test_conv_transpose1d():
    torch.manual_seed(0)
    conv = torch.nn.ConvTranspose1d(3, 5, 4, stride=2, padding=1, output_padding=1)
    assert_close_to_torch(conv, (torch.randn(2, 3, 7),), **TOL)


def test_weight_as_input_is_transposed_at_runtime():
    torch.manual_seed(0)
    fn = Fn(lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2))
    run = assert_close_to_torch(fn, (torch.randn(1, 4, 7, 7), torch.randn(6, 2, 3, 3)), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 4  # input, output and one per group weight


def test_dilated_transposed_weight_as_input():
    torch.manual_seed(0)
    fn = Fn(lambda x, w: F.conv_transpose2d(x, w, stride=2, dilation=2))
    assert_close_to_torch(fn, (torch.randn(1, 3, 4, 5), torch.randn(3, 2, 3, 2)), **TOL)


def test_float16():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1).half()
    # float16 outputs: torch and TOSA round the FP32 accumulators to fp16 at different points.
    assert_close_to_torch(conv, (torch.randn(1, 3, 6, 7).half(),), atol=1e-2, rtol=1e-2)


class ConvChain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 6, 3, stride=2, padding=1, groups=2)

    def forward(self, x):
        return F.max_pool2d(self.conv2(torch.relu(self.conv1(x))), 2)


def test_chain_has_transposes_only_at_its_ends():
    torch.manual_seed(0)
    run = assert_close_to_torch(ConvChain(), (torch.randn(2, 3, 9, 10),), **TOL)
    ops = tosa_ops(run)
    assert ops.count("TRANSPOSE") == 2
    assert ops[0] == "TRANSPOSE" and ops[-1] == "TRANSPOSE"


class MixedChain(torch.nn.Module):
    """Elementwise ops with constant operands, a depthwise conv, a 1x1 conv and an average pool."""

    def __init__(self):
        super().__init__()
        self.depthwise = torch.nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.pointwise = torch.nn.Conv2d(4, 6, 1)
        self.register_buffer("shift", torch.randn(1, 4, 1, 1))

    def forward(self, x):
        y = torch.sigmoid(self.depthwise(x)) * 2.0 + self.shift
        return F.avg_pool2d(self.pointwise(y), 2, ceil_mode=True)


def test_elementwise_between_spatial_ops_runs_channels_last():
    torch.manual_seed(0)
    run = assert_close_to_torch(MixedChain(), (torch.randn(1, 4, 7, 9),), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 2


class PreActivationBlock(torch.nn.Module):
    """x + conv(relu(batch_norm(x))): the residual and the branch meet in the NHWC layout."""

    def __init__(self, channels):
        super().__init__()
        self.norm = torch.nn.BatchNorm2d(channels)
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.norm.running_mean.normal_()
        self.norm.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return x + self.conv(F.relu(self.norm(x)))


def test_residual_blocks_run_channels_last():
    torch.manual_seed(0)
    model = torch.nn.Sequential(PreActivationBlock(4), PreActivationBlock(4), torch.nn.Conv2d(4, 2, 1)).eval()
    run = assert_close_to_torch(model, (torch.randn(2, 4, 6, 7),), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 2


def test_conv1d_chain_has_transposes_only_at_its_ends():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv1d(3, 8, 3, padding=1), torch.nn.Tanh(), torch.nn.Conv1d(8, 4, 3, stride=2))
    run = assert_close_to_torch(model, (torch.randn(2, 3, 17),), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 2


def test_conv_transpose3d_stays_on_cpu():
    assert cpu_ops(lambda x: F.conv_transpose3d(x, torch.ones(2, 2, 2, 2, 2)), (torch.randn(1, 2, 3, 3, 3),)) == [
        ("aten.convolution.default", "3-D transposed convolution (transposed=True) has no TOSA operator")
    ]
