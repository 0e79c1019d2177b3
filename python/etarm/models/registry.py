"""The built-in models by name: each factory registers itself with ``@builtin(name)``."""

from __future__ import annotations

from typing import Callable

import torch

ModelFactory = Callable[[], tuple[torch.nn.Module, tuple]]
BUILTIN: dict[str, ModelFactory] = {}


def builtin(name: str):
    def decorate(factory: ModelFactory) -> ModelFactory:
        BUILTIN[name] = factory
        return factory

    return decorate


def builtin_names() -> list[str]:
    return sorted(BUILTIN)
