"""Indices the indexing ops (index_select, embedding, gather, aten.index) are tested with,
as constants in forward, buffers and graph inputs. Gathering is exact: the tolerance is zero.

Without the INT profile computed indices are rearranged in fp32 (see lowering/indexing.py),
so graph-input indices run under both TOSA-1.0+FP and TOSA-1.0+FP+INT (``TARGETS``); an
index input feeds the indexing op directly: without the INT profile an int32 slice or view
of the indices would stay on CPU (test_permute.test_int32_data_needs_int_profile).
"""

from __future__ import annotations

from typing import Callable

import torch

TARGETS = ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"]


class Buffered(torch.nn.Module):
    """``fn(self, x)`` of a module holding ``tensors`` as buffers (indices the graph reads as constants)."""

    def __init__(self, fn: Callable, **tensors: torch.Tensor):
        super().__init__()
        self.fn = fn
        for name, tensor in tensors.items():
            self.register_buffer(name, tensor)

    def forward(self, x):
        return self.fn(self, x)


def integer_values() -> tuple[torch.Tensor, torch.Tensor]:
    """int32 values (the INT profile's) and int64 indices, shared by every indexing op's int32 case."""
    x = torch.randint(-1000, 1000, (3, 4, 5), dtype=torch.int32)
    index = torch.tensor([[[2, 0]], [[1, 1]], [[0, 3]]])
    return x, index
