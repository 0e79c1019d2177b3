"""Two ops for the Cortex-M flow: a broadcast add (a cortex_m kernel) and a mul (no cortex_m
kernel yet: a portable float kernel between dequantize and quantize)."""

import torch


class AddMul(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * y


torch.manual_seed(0)
ModelUnderTest = AddMul().eval()
ModelInputs = (torch.randn(1, 8, 4, 16), torch.randn(16))
