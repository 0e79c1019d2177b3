"""The quantize step of ``compile_model(..., quantize=True)``: calibration data and PT2E.

exported program -> prepare_pt2e(quantizer for the target) -> calibrate -> convert_pt2e.
The result is an nn.Module holding quantize/dequantize ops, which the compiler
exports again and lowers; for INT targets each partition then reads and writes
integer tensors.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import torch
from torch.export import ExportedProgram
from torch.utils._pytree import tree_map

from etarm import progress
from etarm.errors import EtarmError
from etarm.quantization.fold_batch_norms import fold_batch_norms


def _copy_tensor(value):
    return value.clone() if isinstance(value, torch.Tensor) else value


def _as_batch(value, source: str, expected: int) -> tuple:
    if isinstance(value, torch.Tensor):
        value = (value,)
    elif isinstance(value, list):
        value = tuple(value)
    if not isinstance(value, tuple):
        raise EtarmError(f"calibration data {source} must hold a tuple of inputs, not {type(value).__name__}")
    if len(value) != expected:
        raise EtarmError(f"calibration data {source} holds {len(value)} input(s); the model takes {expected}")
    return value


def _load(path: str, expected: int) -> tuple:
    try:
        value = torch.load(path, weights_only=True)
    except Exception as exc:
        raise EtarmError(f"calibration data '{path}' is not a readable .pt file: {type(exc).__name__}: {exc}") from exc
    return _as_batch(value, f"'{path}'", expected)


# ``--calibration_data random`` or ``random:N``: N inputs drawn like the example inputs.
RANDOM = "random"
RANDOM_DEFAULT_COUNT = 32


def _random_like(example, generator: torch.Generator):
    """A random input of the example's shape and dtype: floats normal with the example's mean and
    spread, integers uniform over the example's range (ids stay valid), bools either value."""
    if not isinstance(example, torch.Tensor):
        return example
    if example.dtype == torch.bool:
        return torch.randint(0, 2, example.shape, generator=generator).bool()
    if not example.dtype.is_floating_point:
        low, high = (int(example.min()), int(example.max())) if example.numel() else (0, 0)
        return torch.randint(low, high + 1, example.shape, generator=generator, dtype=example.dtype)
    wide = example.float()
    mean = float(wide.mean()) if wide.numel() else 0.0
    spread = float(wide.std()) if wide.numel() > 1 else 0.0
    spread = spread if spread > 0 else max(abs(mean), 1.0)
    return (torch.randn(example.shape, generator=generator) * spread + mean).to(example.dtype)


def random_batches(example_inputs: tuple, count: int, seed: int = 0) -> list[tuple]:
    """``count`` input tuples drawn like ``example_inputs`` (seeded: the same set every compile)."""
    generator = torch.Generator().manual_seed(seed)
    return [tuple(_random_like(value, generator) for value in example_inputs) for _ in range(count)]


def _random_count(spec: str) -> int | None:
    """N of ``random`` / ``random:N``; None when ``spec`` names no random set."""
    name, _, count = spec.partition(":")
    if name != RANDOM:
        return None
    if not count:
        return RANDOM_DEFAULT_COUNT
    if not count.isdigit() or int(count) < 1:
        raise EtarmError(f"calibration data '{spec}': the random set's size must be a positive integer (random:32)")
    return int(count)


def calibration_batches(calibration_data: str | os.PathLike | Iterable[tuple] | None, example_inputs: tuple) -> list[tuple]:
    """The input tuples to calibrate with: from a .pt file, a folder of .pt files (each a
    tuple of inputs), ``random`` / ``random:N`` (N inputs drawn like the example inputs,
    default 32), or an iterable of input tuples; the example inputs when None."""
    expected = len(example_inputs)
    if calibration_data is None:
        return [tuple(example_inputs)]
    if isinstance(calibration_data, (str, os.PathLike)):
        path = os.fspath(calibration_data)
        count = None if os.path.exists(path) else _random_count(path)
        if count is not None:
            return random_batches(tuple(example_inputs), count)
        if os.path.isdir(path):
            files = sorted(f for f in os.listdir(path) if f.endswith(".pt"))
            if not files:
                raise EtarmError(f"calibration data folder '{path}' holds no .pt files")
            return [_load(os.path.join(path, f), expected) for f in files]
        if os.path.isfile(path):
            return [_load(path, expected)]
        raise EtarmError(f"calibration data '{path}' does not exist")
    batches = [_as_batch(b, "batch", expected) for b in calibration_data]
    if not batches:
        raise EtarmError("calibration data holds no batches")
    return batches


def quantize_program(exported: ExportedProgram, quantizer, batches: list[tuple]) -> torch.fx.GraphModule:
    """prepare_pt2e, run every batch through the observers, convert_pt2e."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    module = exported.module()
    fold_batch_norms(module)
    prepared = prepare_pt2e(module, quantizer)
    with torch.no_grad():
        for done, batch in enumerate(batches, 1):
            progress.current().count("calibrating", done, len(batches))
            try:
                # On copies: a model that works in place must not change the caller's data.
                prepared(*tree_map(_copy_tensor, batch))
            except Exception as exc:
                raise EtarmError(f"calibration failed: {type(exc).__name__}: {exc}") from exc
    return convert_pt2e(prepared)
