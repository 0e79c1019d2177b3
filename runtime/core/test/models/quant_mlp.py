"""A small MLP compiled with -q --no-delegate: the .pte keeps the PT2E quantize /
dequantize per-tensor ops around float linear layers, all on the CPU."""

import torch


class QuantMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 24)
        self.fc2 = torch.nn.Linear(24, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(1)
ModelUnderTest = QuantMlp().eval()
ModelInputs = (torch.randn(4, 16),)
