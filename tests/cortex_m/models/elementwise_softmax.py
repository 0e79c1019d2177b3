"""cortex_m elementwise ops and softmax end to end: a broadcast mul, minimum and maximum (the project's
kernels), then a softmax over the last dim (arm_softmax_s8)."""

import torch


class ElementwiseSoftmax(torch.nn.Module):
    def forward(self, x, y):
        low = torch.minimum(x * y, x)
        return torch.softmax(torch.maximum(low, y), dim=-1)


torch.manual_seed(0)
ModelUnderTest = ElementwiseSoftmax().eval()
ModelInputs = (torch.randn(2, 4, 16), torch.randn(16))
