"""A small decoder for the Cortex-M flow: conv -> relu -> transposed conv (stride 2, output_padding 1) -> relu ->
transposed conv (stride 2, 4x4 kernel, padding 1), upsampling a 1x3x6x6 input to 1x2x24x24. Every convolution becomes
a cortex_m op on NHWC data (quantized_conv2d, then two quantized_transpose_conv2d through arm_transpose_conv_s8, the
relus their clamps); only the model's input and output are transposed."""

import torch


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.up = torch.nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)
        self.out = torch.nn.ConvTranspose2d(6, 2, 4, stride=2, padding=1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.out(torch.relu(self.up(x)))


torch.manual_seed(0)
ModelUnderTest = Decoder().eval()
ModelInputs = (torch.randn(1, 3, 6, 6),)
