"""Built-in models for ``etarm compile -m NAME``; ``load_model`` also reads model files.

A model file is a .py defining ``ModelUnderTest`` (an nn.Module instance) and
``ModelInputs`` (a tuple of example tensors).
"""

from __future__ import annotations

import importlib.util
import os

import torch

from etarm.errors import EtarmError
from etarm.models import networks, zoo  # noqa: F401  (the built-in models register themselves)
from etarm.models.registry import BUILTIN, builtin_names


def _load_file(path: str) -> tuple[torch.nn.Module, tuple]:
    if not os.path.isfile(path):
        raise EtarmError(f"model file '{path}' does not exist")
    if not os.access(path, os.R_OK):
        raise EtarmError(f"model file '{path}' is not readable")
    spec = importlib.util.spec_from_file_location(f"etarm_user_model_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: any failure is reported, not raised
        raise EtarmError(f"model file '{path}' failed to load: {type(exc).__name__}: {exc}") from exc
    missing = [n for n in ("ModelUnderTest", "ModelInputs") if not hasattr(module, n)]
    if missing:
        raise EtarmError(f"model file '{path}' does not define {' and '.join(missing)}")
    model, inputs = module.ModelUnderTest, module.ModelInputs
    if not isinstance(model, torch.nn.Module):
        raise EtarmError(f"ModelUnderTest in '{path}' is a {type(model).__name__}, not a torch.nn.Module instance")
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, tuple):
        raise EtarmError(f"ModelInputs in '{path}' must be a tuple of example tensors")
    return model, inputs


def load_model(name_or_path: str) -> tuple[torch.nn.Module, tuple]:
    if name_or_path in BUILTIN:
        return BUILTIN[name_or_path]()
    if name_or_path.endswith(".py") or os.sep in name_or_path:
        return _load_file(name_or_path)
    raise EtarmError(
        f"unknown model '{name_or_path}': give a .py model file or one of {', '.join(builtin_names())}"
    )
