"""Built-in models for ``etarm compile -m NAME``; ``load_model`` also reads model files.

A model file is a .py defining ``ModelUnderTest`` (an nn.Module instance) and
``ModelInputs`` (a tuple of example tensors).
"""

from __future__ import annotations

import importlib.util
import os
import sys

import torch

from etarm.errors import EtarmError
from etarm.models import (  # noqa: F401  (the built-in models register themselves)
    conformer,
    efficientnet,
    llama,
    mobilenet,
    networks,
    recurrent,
    resnet,
    speech,
    vision_transformer,
    zoo,
)
from etarm.models.registry import BUILTIN, builtin_names


def _as_inputs(value, where: str) -> tuple:
    if isinstance(value, torch.Tensor):
        value = (value,)
    if isinstance(value, list):
        value = tuple(value)
    if not isinstance(value, tuple):
        raise EtarmError(f"{where} must be a tuple of example tensors, not {type(value).__name__}")
    return value


def _load_inputs_file(path: str) -> tuple:
    if not os.path.isfile(path):
        raise EtarmError(f"model input file '{path}' does not exist")
    try:
        value = torch.load(path, weights_only=True)
    except Exception as exc:
        raise EtarmError(f"model input file '{path}' is not a torch.save'd tensor or tuple: {exc}") from exc
    return _as_inputs(value, f"the model input in '{path}'")


def _load_file(path: str, inputs_name: str = "ModelInputs") -> tuple[torch.nn.Module, tuple]:
    if not os.path.isfile(path):
        raise EtarmError(f"model file '{path}' does not exist")
    if not os.access(path, os.R_OK):
        raise EtarmError(f"model file '{path}' is not readable")
    spec = importlib.util.spec_from_file_location(f"etarm_user_model_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    # Strict export (TorchDynamo) looks the model's module up by name.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: any failure is reported, not raised
        raise EtarmError(f"model file '{path}' failed to load: {type(exc).__name__}: {exc}") from exc
    missing = [n for n in ("ModelUnderTest", inputs_name) if not hasattr(module, n)]
    if missing:
        raise EtarmError(f"model file '{path}' does not define {' and '.join(missing)}")
    model = module.ModelUnderTest
    if not isinstance(model, torch.nn.Module):
        raise EtarmError(f"ModelUnderTest in '{path}' is a {type(model).__name__}, not a torch.nn.Module instance")
    return model, _as_inputs(getattr(module, inputs_name), f"{inputs_name} in '{path}'")


def load_model(name_or_path: str, model_input: str | None = None) -> tuple[torch.nn.Module, tuple]:
    """The model and its example inputs. ``model_input`` (aot_arm_compiler's --model_input): a
    .pt/.pth file of example inputs, or the name of the variable holding them in the model file
    (instead of ModelInputs)."""
    builtin = name_or_path in BUILTIN
    if not builtin and not (name_or_path.endswith(".py") or os.sep in name_or_path):
        raise EtarmError(
            f"unknown model '{name_or_path}': give a .py model file or one of {', '.join(builtin_names())}"
        )
    inputs_file = model_input if model_input and model_input.endswith((".pt", ".pth")) else None
    inputs_name = model_input if model_input and not inputs_file else None
    if inputs_name and builtin:
        raise EtarmError(f"--model_input '{model_input}' names a variable, which needs a .py model file")
    model, inputs = BUILTIN[name_or_path]() if builtin else _load_file(name_or_path, inputs_name or "ModelInputs")
    return model, _load_inputs_file(inputs_file) if inputs_file else inputs
