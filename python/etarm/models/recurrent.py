"""Keyword-spotting style recurrent classifiers on nn.LSTM and nn.GRU: two stacked layers of
128 units over 49 frames of 10 MFCC features (a 1 s clip at a 20 ms hop), a linear classifier
over the 12 classes of the Speech Commands task on the last step. Seeded random weights."""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.registry import builtin
from etarm.models.weights import seeded

FRAMES = 49
FEATURES = 10
HIDDEN = 128
LAYERS = 2
CLASSES = 12


class RecurrentClassifier(nn.Module):
    def __init__(self, recurrent: type[nn.LSTM | nn.GRU]):
        super().__init__()
        self.recurrent = recurrent(FEATURES, HIDDEN, num_layers=LAYERS, batch_first=True)
        self.classifier = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):
        sequence, _state = self.recurrent(x)
        return self.classifier(sequence[:, -1])


@builtin("lstm", full_size=True)
def lstm():
    seeded()
    return RecurrentClassifier(nn.LSTM).eval(), (torch.randn(1, FRAMES, FEATURES),)


@builtin("gru", full_size=True)
def gru():
    seeded()
    return RecurrentClassifier(nn.GRU).eval(), (torch.randn(1, FRAMES, FEATURES),)
