"""A small self-attention block for cortex_m::quantized_bmm end to end: q, k and v linears, softmax(q @ k^T) (the
1/sqrt(d) scale folded into q's weights) times v, an output linear; every op a cortex_m op between the boundary
quantize and dequantize (k^T read by the product without a transpose)."""

import math

import torch


class Attention(torch.nn.Module):
    def __init__(self, dim: int = 24):
        super().__init__()
        self.q, self.k, self.v, self.out = (torch.nn.Linear(dim, dim) for _ in range(4))
        with torch.no_grad():
            self.q.weight.mul_(1 / math.sqrt(dim))
            self.q.bias.mul_(1 / math.sqrt(dim))

    def forward(self, x):
        scores = torch.bmm(self.q(x), self.k(x).transpose(1, 2))
        return self.out(torch.bmm(torch.softmax(scores, dim=-1), self.v(x)))


torch.manual_seed(0)
ModelUnderTest = Attention().eval()
ModelInputs = (torch.randn(2, 10, 24),)
