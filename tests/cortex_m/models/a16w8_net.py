"""A small a16w8 network for the Cortex-M flow (compiled with --a16w8: int16 activations, int8 weights): pad -> conv ->
relu -> depthwise -> grouped conv -> relu -> 2x2 max pool -> x * x + x -> 3x3 average pool, then two heads: linear ->
softmax, and mean over H, W -> relu6 (an activation the quantizer leaves alone after a mean), on a 1x3x8x8 input.
Every op becomes a cortex_m op on int16 tensors (CMSIS-NN s16 kernels, the project's int16 softmax, mean, clamp and
pad, and its int16 transpose at the layout boundaries)."""

import torch


class A16w8Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.grouped = torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv(torch.nn.functional.pad(x, (1, 1, 1, 1))))
        x = torch.relu(self.grouped(self.depthwise(x)))
        x = torch.nn.functional.max_pool2d(x, 2)
        x = x * x + x
        x = torch.nn.functional.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)
        return torch.softmax(self.fc(x.flatten(1)), dim=-1), torch.nn.functional.relu6(x.mean(dim=(2, 3)))


torch.manual_seed(0)
ModelUnderTest = A16w8Net().eval()
ModelInputs = (torch.randn(1, 3, 8, 8),)
