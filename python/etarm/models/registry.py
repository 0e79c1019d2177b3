"""The built-in models by name: each factory registers itself with ``@builtin(name)``."""

from __future__ import annotations

from typing import Callable

import torch

ModelFactory = Callable[[], tuple[torch.nn.Module, tuple]]
BUILTIN: dict[str, ModelFactory] = {}
# Networks in their published sizes (millions of MACs): tests that sweep every built-in
# model within seconds take the small ones only.
FULL_SIZE: set[str] = set()


def builtin(name: str, full_size: bool = False):
    def decorate(factory: ModelFactory) -> ModelFactory:
        BUILTIN[name] = factory
        if full_size:
            FULL_SIZE.add(name)
        return factory

    return decorate


def builtin_names(full_size: bool = True) -> list[str]:
    """Every built-in model's name; ``full_size=False`` leaves out the published-size networks."""
    return sorted(name for name in BUILTIN if full_size or name not in FULL_SIZE)
