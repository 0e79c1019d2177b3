"""Recomputing a node's meta["val"] (its fake tensor) after a pass changed its inputs or kwargs."""

from __future__ import annotations

import contextlib

import torch
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import maybe_get_fake_mode
from torch.fx.node import map_aggregate


def _tensors(value) -> list[torch.Tensor]:
    found = []
    map_aggregate(value, lambda v: found.append(v) if isinstance(v, torch.Tensor) else None)
    return found


def fake_mode_of(graph: torch.fx.Graph):
    """The fake mode the graph's meta values were made in (a context manager either way)."""
    values = [t for node in graph.nodes for t in _tensors(node.meta.get("val"))]
    return detect_fake_mode(values) or contextlib.nullcontext()


def fake_mode_of_value(value):
    return maybe_get_fake_mode(value) or contextlib.nullcontext()


def compute_value(node: torch.fx.Node, fake_mode):
    """Runs ``node``'s target on its inputs' meta values; raises what the op raises."""

    def meta_of(arg):
        return arg.meta["val"] if isinstance(arg, torch.fx.Node) else arg

    args = map_aggregate(node.args, meta_of)
    kwargs = map_aggregate(node.kwargs, meta_of)
    with fake_mode:
        return node.target(*args, **kwargs)


def same_types(a, b) -> bool:
    """Whether two meta values agree in dtype and device (shapes never change in these passes)."""
    left, right = _tensors(a), _tensors(b)
    return len(left) == len(right) and all(x.dtype == y.dtype and x.device == y.device for x, y in zip(left, right))
