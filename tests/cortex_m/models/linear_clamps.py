"""Linear layers for the Cortex-M flow: relu6 and hardtanh fused as the output clamp of the linear
before them, a linear without a bias, and a [3, 2, 24] input
(leading dims flattened around each matmul) (cortex_m::quantized_linear)."""

import torch


class LinearClamps(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(24, 20)
        self.fc2 = torch.nn.Linear(20, 12, bias=False)
        self.fc3 = torch.nn.Linear(12, 6)

    def forward(self, x):
        x = torch.nn.functional.relu6(self.fc1(x))
        return self.fc3(torch.nn.functional.hardtanh(self.fc2(x), -0.75, 0.5))


torch.manual_seed(0)
ModelUnderTest = LinearClamps().eval()
ModelInputs = (torch.randn(3, 2, 24),)
