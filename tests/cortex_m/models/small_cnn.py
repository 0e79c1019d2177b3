"""A small NCHW CNN for the Cortex-M flow: conv -> relu -> depthwise (channel multiplier 2, stride 2) -> relu6 ->
2x2 max pool -> 1x1 conv -> 2x2 average pool, on a 1x3x16x16 input. Every op becomes a cortex_m op on NHWC data;
only the model's input and output are transposed (cortex_m::quantized_conv2d, quantized_depthwise_conv2d,
quantized_max_pool2d, quantized_avg_pool2d)."""

import torch


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=8)
        self.pointwise = torch.nn.Conv2d(16, 6, 1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = torch.nn.functional.relu6(self.depthwise(x))
        x = torch.nn.functional.max_pool2d(x, 2)
        return torch.nn.functional.avg_pool2d(self.pointwise(x), 2)


torch.manual_seed(0)
ModelUnderTest = SmallCnn().eval()
ModelInputs = (torch.randn(1, 3, 16, 16),)
