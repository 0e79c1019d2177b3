"""A linear layer over 65540 input features, which the NPU cannot read (at most 65536 channels),
between float input and a second, NPU-sized linear layer: on Ethos-U the first runs as a cortex_m
kernel on the CPU beside the NPU (docs/cortex_m.md, "Ethos-U + Cortex-M")."""

import torch


class WideLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wide = torch.nn.Linear(65540, 8)
        self.head = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.head(torch.relu(self.wide(x)))


torch.manual_seed(0)
ModelUnderTest = WideLinear().eval()
ModelInputs = (torch.randn(1, 65540),)
