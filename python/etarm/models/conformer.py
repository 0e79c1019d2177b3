"""One Conformer block (Gulati et al. 2020) with the Conformer-S shapes: width 144, 4 heads,
feed-forward 576, depthwise conv kernel 31, over 128 frames (about 5 s of audio after the
4x subsampling front end). Self-attention is plain multi-head attention: the paper's relative
positional encoding is left out. Seeded random weights."""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.registry import builtin
from etarm.models.weights import randomize_batch_norms, seeded

WIDTH = 144
HEADS = 4
KERNEL = 31
FRAMES = 128


class FeedForward(nn.Module):
    """LayerNorm, 4x expansion with SiLU, projection back; the block adds half of it."""

    def __init__(self, width: int):
        super().__init__()
        self.layers = nn.Sequential(
            nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.SiLU(), nn.Linear(4 * width, width)
        )

    def forward(self, x):
        return self.layers(x)


class ConvolutionModule(nn.Module):
    """LayerNorm, pointwise conv to 2x with GLU, depthwise conv, BatchNorm, SiLU, pointwise conv."""

    def __init__(self, width: int, kernel: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.layers = nn.Sequential(
            nn.Conv1d(width, 2 * width, 1),
            nn.GLU(dim=1),
            nn.Conv1d(width, width, kernel, padding=kernel // 2, groups=width),
            nn.BatchNorm1d(width),
            nn.SiLU(),
            nn.Conv1d(width, width, 1),
        )

    def forward(self, x):
        return self.layers(self.norm(x).transpose(1, 2)).transpose(1, 2)


class ConformerBlock(nn.Module):
    """Half feed-forward, self-attention, convolution, half feed-forward, each residual; LayerNorm."""

    def __init__(self, width: int = WIDTH, heads: int = HEADS, kernel: int = KERNEL):
        super().__init__()
        self.feed_forward_in = FeedForward(width)
        self.attention_norm = nn.LayerNorm(width)
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.convolution = ConvolutionModule(width, kernel)
        self.feed_forward_out = FeedForward(width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        x = x + 0.5 * self.feed_forward_in(x)
        normed = self.attention_norm(x)
        x = x + self.attention(normed, normed, normed, need_weights=False)[0]
        x = x + self.convolution(x)
        return self.norm(x + 0.5 * self.feed_forward_out(x))


@builtin("conformer_block", full_size=True)
def conformer_block():
    seeded()
    return randomize_batch_norms(ConformerBlock()).eval(), (torch.randn(1, FRAMES, WIDTH),)
