"""Package attributes imported on first use: a family package (etarm.ethosu, etarm.vgf) names
its public classes without importing torch, Vela or the converter until one is asked for."""

from __future__ import annotations

import importlib
from typing import Callable


def lazy_getattr(package: str, exports: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` giving ``exports[name]``'s attribute ``name``."""

    def __getattr__(name: str):
        if name in exports:
            return getattr(importlib.import_module(exports[name]), name)
        raise AttributeError(f"module '{package}' has no attribute '{name}'")

    return __getattr__
