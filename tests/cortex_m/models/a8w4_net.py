"""A small a8w4 network for the Cortex-M flow (compiled with --a8w4: int8 activations, int4 weights): conv (3 input
channels, 27 weights per filter: filters share bytes) -> relu -> depthwise over 5 channels (CMSIS-NN's optimized s4
kernel, odd channels) -> 1x1 conv (the fast 1x1) -> depthwise with multiplier 2 over 6 channels (the general s4
kernel) -> strided 1x1 -> grouped conv (no s4 kernel: int8 weights) -> relu6, then linear (K = 75, odd) -> relu ->
linear, on a 1x3x10x9 input. Every convolution and linear but the grouped one runs on packed int4 weights."""

import torch


class A8w4Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 5, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(5, 5, 3, padding=1, groups=5)
        self.pointwise = torch.nn.Conv2d(5, 6, 1)
        self.multiplier = torch.nn.Conv2d(6, 12, 3, padding=1, groups=6)
        self.strided = torch.nn.Conv2d(12, 6, 1, stride=2)
        self.grouped = torch.nn.Conv2d(6, 3, 3, padding=1, groups=3)
        self.fc1 = torch.nn.Linear(3 * 5 * 5, 11)
        self.fc2 = torch.nn.Linear(11, 4)

    def forward(self, x):
        x = self.depthwise(torch.relu(self.conv(x)))
        x = self.strided(self.multiplier(self.pointwise(x)))
        x = torch.nn.functional.relu6(self.grouped(x))
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


torch.manual_seed(0)
ModelUnderTest = A8w4Net().eval()
ModelInputs = (torch.randn(1, 3, 10, 9),)
