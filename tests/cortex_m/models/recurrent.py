"""Recurrent layers for the Cortex-M flow: a 2-layer nn.LSTM and an nn.GRU over 6 frames, then a linear. Decomposed
before annotation, every gate is a cortex_m op (linear, look-up tables, mul, add, sub) and the slices, selects and
concatenations move int8 values."""

import torch


class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.gru = torch.nn.GRU(16, 12, batch_first=True)
        self.classifier = torch.nn.Linear(12, 5)

    def forward(self, x):
        sequence, _ = self.lstm(x)
        sequence, _ = self.gru(sequence)
        return self.classifier(sequence[:, -1])


torch.manual_seed(0)
ModelUnderTest = Recurrent().eval()
ModelInputs = (torch.randn(1, 6, 8),)
