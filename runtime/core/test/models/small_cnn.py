"""A small CNN for the runtime-core differential tests: two convolutions (one grouped and
strided), ReLU, an elementwise gate (mul), a channel concat, a residual add, global mean
pooling, a linear layer and softmax. Every op stays on the CPU (compiled --no-delegate)."""

import torch


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1, groups=2)
        self.gate = torch.nn.Conv2d(8, 8, kernel_size=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = torch.relu(self.conv2(y))
        g = y * self.gate(y)
        z = torch.cat([y, g + y], dim=1)
        z = z.mean(dim=(2, 3))
        return torch.softmax(self.fc(z), dim=-1)


torch.manual_seed(0)
ModelUnderTest = SmallCnn().eval()
ModelInputs = (torch.randn(1, 3, 16, 16),)
