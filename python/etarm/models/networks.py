"""Small networks in the shapes embedded ML teams deploy, as built-in models.

Each is a few layers of a well-known architecture, sized so a compile and a run on the
TOSA reference model take seconds: they prove whole-graph lowering (layouts, fusions,
quantization parameters flowing between ops), not accuracy on a dataset.
"""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.registry import builtin
from etarm.models.weights import randomize_batch_norms, seeded


class CnnBn(nn.Module):
    """conv-BN-relu twice, max pool, global average pool, classifier."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU6(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(32, classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


@builtin("cnn_bn")
def cnn_bn():
    seeded()
    return randomize_batch_norms(CnnBn()).eval(), (torch.randn(1, 3, 16, 16),)


class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, 1x1 project, residual add."""

    def __init__(self, channels: int = 16, expansion: int = 4):
        super().__init__()
        hidden = channels * expansion
        self.block = nn.Sequential(
            nn.Conv2d(channels, hidden, 1, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, channels, 1, bias=False),
            nn.BatchNorm2d(channels),
        )

    def forward(self, x):
        return x + self.block(x)


@builtin("inverted_residual")
def inverted_residual():
    seeded()
    return randomize_batch_norms(InvertedResidual()).eval(), (torch.randn(1, 16, 12, 12),)


class TransformerBlock(nn.Module):
    """Pre-norm encoder block: LayerNorm, multi-head self-attention, LayerNorm, GELU MLP."""

    def __init__(self, width: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x):
        batch, tokens, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        split = lambda t: t.reshape(batch, tokens, self.heads, width // self.heads).transpose(1, 2)  # noqa: E731
        attended = nn.functional.scaled_dot_product_attention(split(q), split(k), split(v))
        x = x + self.proj(attended.transpose(1, 2).reshape(batch, tokens, width))
        return x + self.mlp(self.norm2(x))


@builtin("transformer_block")
def transformer_block():
    seeded()
    return TransformerBlock().eval(), (torch.randn(1, 8, 32),)


@builtin("encoder_layer")
def encoder_layer():
    """torch's own post-norm encoder layer (ReLU feed-forward), 10 tokens."""
    seeded()
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
    return layer.eval(), (torch.randn(1, 10, 32),)


class AudioNet(nn.Module):
    """1-D conv net over a feature sequence (keyword-spotting style front end)."""

    def __init__(self, features: int = 10, classes: int = 12):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(features, 24, 5, stride=2, padding=2),
            nn.BatchNorm1d(24),
            nn.ReLU(),
            nn.Conv1d(24, 24, 3, padding=2, dilation=2, groups=24),
            nn.ReLU(),
            nn.Conv1d(24, 32, 1),
            nn.ReLU(),
            nn.AvgPool1d(2),
        )
        self.classifier = nn.Linear(32, classes)

    def forward(self, x):
        return self.classifier(self.body(x).mean(dim=-1))


@builtin("audio_1d")
def audio_1d():
    seeded()
    return randomize_batch_norms(AudioNet()).eval(), (torch.randn(1, 10, 49),)


class DsCnn(nn.Module):
    """DS-CNN keyword spotter: a strided conv, depthwise-separable blocks, average pool."""

    def __init__(self, classes: int = 12, width: int = 32, blocks: int = 2):
        super().__init__()
        layers = [nn.Conv2d(1, width, (10, 4), stride=(2, 2), padding=(5, 1)), nn.BatchNorm2d(width), nn.ReLU()]
        for _ in range(blocks):
            layers += [
                nn.Conv2d(width, width, 3, padding=1, groups=width),
                nn.BatchNorm2d(width),
                nn.ReLU(),
                nn.Conv2d(width, width, 1),
                nn.BatchNorm2d(width),
                nn.ReLU(),
            ]
        self.body = nn.Sequential(*layers)
        self.classifier = nn.Linear(width, classes)

    def forward(self, x):
        features = self.body(x)
        return self.classifier(nn.functional.avg_pool2d(features, features.shape[-2:]).flatten(1))


@builtin("ds_cnn")
def ds_cnn():
    seeded()
    return randomize_batch_norms(DsCnn()).eval(), (torch.randn(1, 1, 49, 10),)


class TinyUNet(nn.Module):
    """Encoder-decoder with a skip connection: conv, pool, conv, 2x nearest upsample, concat."""

    def __init__(self, channels: int = 8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.ReLU())
        self.bottom = nn.Sequential(nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU())
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(3 * channels, 2, 1)

    def forward(self, x):
        skip = self.down(x)
        deep = self.up(self.bottom(nn.functional.max_pool2d(skip, 2)))
        return self.head(torch.cat([skip, deep], dim=1))


@builtin("unet")
def unet():
    seeded()
    return TinyUNet().eval(), (torch.randn(1, 3, 16, 16),)


class TokenEmbedding(nn.Module):
    """int64 token ids -> embedding + learned positions indexed by arange."""

    def __init__(self, vocabulary: int = 50, width: int = 16, tokens: int = 12):
        super().__init__()
        self.tokens = nn.Embedding(vocabulary, width)
        self.positions = nn.Embedding(tokens, width)
        self.out = nn.Linear(width, width)

    def forward(self, ids):
        positions = torch.arange(ids.shape[-1], dtype=torch.int64)
        return self.out(self.tokens(ids) + self.positions(positions))


@builtin("embedding_ids")
def embedding_ids():
    seeded()
    return TokenEmbedding().eval(), (torch.randint(0, 50, (2, 12), dtype=torch.int64),)
