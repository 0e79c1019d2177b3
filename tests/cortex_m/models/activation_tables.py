"""cortex_m::quantized_table end to end: conv -> hardswish -> conv -> sigmoid gating its input (a mul) -> tanh, and
silu on the first activation's result: four tables, two of them between NHWC convolutions."""

import torch
import torch.nn.functional as F


class ActivationTables(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.second = torch.nn.Conv2d(8, 8, 1)

    def forward(self, x):
        y = F.hardswish(self.first(x))
        z = self.second(y)
        return torch.tanh(z * torch.sigmoid(z)), F.silu(y)


torch.manual_seed(0)
ModelUnderTest = ActivationTables().eval()
ModelInputs = (torch.randn(1, 3, 8, 8),)
