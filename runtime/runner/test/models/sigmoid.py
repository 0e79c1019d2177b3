"""A one-op model whose kernel (aten::sigmoid.out) //kernels/portable does not have: its
undelegated program must fail to load with OperatorMissing on the board."""

import torch


class Sigmoid(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(x)


ModelUnderTest = Sigmoid()
ModelInputs = (torch.randn(2, 8),)
