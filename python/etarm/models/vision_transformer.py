"""DeiT-tiny (Touvron et al. 2021): a ViT of 12 pre-norm encoder blocks, width 192, 3 heads,
MLP ratio 4, on 16x16 patches of a 224x224 image plus a class token; seeded random weights."""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.layers import IMAGENET_CLASSES
from etarm.models.registry import builtin
from etarm.models.weights import seeded


class Attention(nn.Module):
    """Multi-head self-attention with one fused q/k/v projection."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        batch, tokens, width = x.shape
        qkv = self.qkv(x).reshape(batch, tokens, 3, self.heads, width // self.heads).permute(2, 0, 3, 1, 4)
        attended = nn.functional.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])
        return self.proj(attended.transpose(1, 2).reshape(batch, tokens, width))


class EncoderBlock(nn.Module):
    def __init__(self, width: int, heads: int, mlp_ratio: int = 4):
        super().__init__()
        self.norm1 = nn.LayerNorm(width, eps=1e-6)
        self.attention = Attention(width, heads)
        self.norm2 = nn.LayerNorm(width, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(width, mlp_ratio * width), nn.GELU(), nn.Linear(mlp_ratio * width, width))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    def __init__(self, image=224, patch=16, width=192, depth=12, heads=3, classes=IMAGENET_CLASSES):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, width, patch, patch)
        self.class_token = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.positions = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, width) * 0.02)
        self.blocks = nn.Sequential(*(EncoderBlock(width, heads) for _ in range(depth)))
        self.norm = nn.LayerNorm(width, eps=1e-6)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        patches = self.patch_embedding(x).flatten(2).transpose(1, 2)
        tokens = torch.cat([self.class_token.expand(x.shape[0], -1, -1), patches], dim=1) + self.positions
        return self.head(self.norm(self.blocks(tokens))[:, 0])


@builtin("deit_tiny", full_size=True)
def deit_tiny():
    seeded()
    return VisionTransformer().eval(), (torch.randn(1, 3, 224, 224),)
