"""Two ops for the Cortex-M flow: a broadcast add and a broadcast mul, both cortex_m kernels."""

import torch


class AddMul(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * y


torch.manual_seed(0)
ModelUnderTest = AddMul().eval()
ModelInputs = (torch.randn(1, 8, 4, 16), torch.randn(16))
