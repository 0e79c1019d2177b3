"""A llama-style decoder with the shapes of stories15M: width 288, 6 layers, 6 heads (no grouped
keys), SwiGLU feed-forward of 768, RMSNorm, rotary position embeddings, causal attention, a
32000-token vocabulary whose embedding is also the output projection. It reads a static
sequence of 128 int64 token ids and returns the logits of every position. Seeded random weights.
"""

from __future__ import annotations

import torch
from torch import nn

from etarm.models.registry import builtin
from etarm.models.weights import seeded

VOCABULARY = 32000
WIDTH = 288
LAYERS = 6
HEADS = 6
FEED_FORWARD = 768
SEQUENCE = 128
ROPE_BASE = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, width: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotary_tables(head_width: int, positions: int) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of each position's angle for each pair of features, [positions, head_width / 2]."""
    frequencies = ROPE_BASE ** -(torch.arange(0, head_width, 2).float() / head_width)
    angles = torch.outer(torch.arange(positions).float(), frequencies)
    return torch.cos(angles), torch.sin(angles)


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotates the feature pairs (2i, 2i+1) of x [batch, heads, positions, head_width] by each
    position's angles."""
    pairs = x.reshape(*x.shape[:-1], -1, 2)
    even, odd = pairs[..., 0], pairs[..., 1]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(WIDTH, WIDTH, bias=False)
        self.key = nn.Linear(WIDTH, WIDTH, bias=False)
        self.value = nn.Linear(WIDTH, WIDTH, bias=False)
        self.output = nn.Linear(WIDTH, WIDTH, bias=False)

    def forward(self, x, cos, sin):
        batch, positions, _ = x.shape
        heads = [
            projection(x).reshape(batch, positions, HEADS, WIDTH // HEADS).transpose(1, 2)
            for projection in (self.query, self.key, self.value)
        ]
        query, key, value = rotate(heads[0], cos, sin), rotate(heads[1], cos, sin), heads[2]
        attended = nn.functional.scaled_dot_product_attention(query, key, value, is_causal=True)
        return self.output(attended.transpose(1, 2).reshape(batch, positions, WIDTH))


class SwiGLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(WIDTH, FEED_FORWARD, bias=False)
        self.up = nn.Linear(WIDTH, FEED_FORWARD, bias=False)
        self.down = nn.Linear(FEED_FORWARD, WIDTH, bias=False)

    def forward(self, x):
        return self.down(nn.functional.silu(self.gate(x)) * self.up(x))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_norm = RMSNorm(WIDTH)
        self.attention = CausalSelfAttention()
        self.feed_forward_norm = RMSNorm(WIDTH)
        self.feed_forward = SwiGLU()

    def forward(self, x, cos, sin):
        x = x + self.attention(self.attention_norm(x), cos, sin)
        return x + self.feed_forward(self.feed_forward_norm(x))


class LlamaDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCABULARY, WIDTH)
        # The usual initialisation of llama-style models: logits of unit scale, not ~20.
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(LAYERS))
        self.norm = RMSNorm(WIDTH)
        self.output = nn.Linear(WIDTH, VOCABULARY, bias=False)
        self.output.weight = self.embedding.weight
        cos, sin = rotary_tables(WIDTH // HEADS, SEQUENCE)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, tokens):
        x = self.embedding(tokens)
        # Shorter sequences than SEQUENCE take the first positions' angles.
        cos, sin = self.cos[: tokens.shape[1]], self.sin[: tokens.shape[1]]
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.output(self.norm(x))


@builtin("llama", full_size=True)
def llama():
    seeded()
    return LlamaDecoder().eval(), (torch.randint(0, VOCABULARY, (1, SEQUENCE), dtype=torch.int64),)
