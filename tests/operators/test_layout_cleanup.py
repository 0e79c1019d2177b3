"""The NCHW <-> NHWC layout across ops: in models whose convolutions, pools, resizes and the
elementwise ops between them run channels-last, TRANSPOSEs stay only at the ends of the
chain (FP tolerance 1e-4: convolution sums in another order; INT within 1 LSB).

The pass that cancels the layout changes, on hand-built TOSA graphs:
tests/passes/test_cancel_layout_changes.py.
"""

import torch
import torch.nn.functional as F

from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch

TOL = dict(atol=1e-4, rtol=1e-4)


class ConvChain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 6, 3, stride=2, padding=1, groups=2)

    def forward(self, x):
        return F.max_pool2d(self.conv2(torch.relu(self.conv1(x))), 2)


def test_conv_chain_has_transposes_only_at_its_ends():
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
    model = torch.nn.Sequential(
        torch.nn.Conv1d(3, 8, 3, padding=1), torch.nn.Tanh(), torch.nn.Conv1d(8, 4, 3, stride=2)
    )
    run = assert_close_to_torch(model, (torch.randn(2, 3, 17),), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 2


def test_pool_after_conv_keeps_channels_last():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.MaxPool2d(2, ceil_mode=True), torch.nn.AvgPool2d(2))
    run = assert_close_to_torch(model, (torch.randn(1, 3, 12, 11),), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 2


def test_upsample_after_conv_keeps_channels_last():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1),
        torch.nn.Upsample(scale_factor=2, mode="bilinear"),
        torch.nn.Conv2d(4, 2, 1),
    )
    run = assert_close_to_torch(model, (torch.randn(1, 3, 5, 6),), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 2


def test_int8_conv_chain_with_hardtanh_runs_channels_last():
    torch.manual_seed(3)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Hardtanh(-1.0, 1.0), torch.nn.Conv2d(8, 8, 3, groups=8)
    ).eval()
    torch.manual_seed(0)
    run = assert_quantized_close(model, (torch.randn(1, 3, 7, 7),))
    ops = tosa_ops(run)
    assert ops.count("TRANSPOSE") == 2 and ops.count("RESCALE") == 2 and ops.count("CLAMP") <= 1
