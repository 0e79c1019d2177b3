"""Test helpers for the TOSA FP profile's float extensions: bf16 (``+bf16``), fp8 (``+fp8e4m3``, ``+fp8e5m2``).

``assert_extension_float_close`` lowers a module for its dtype's extension and compares the
reference model with torch within the format's precision; ``assert_needs_extension`` checks
that, without the extension, the op stays on CPU with the reason.
"""

from __future__ import annotations

import torch

from etarm.compiler import compile_model
from etarm.lowering.dtype_rules import EXTENSION_OF_FLOAT, FP8
from etarm.testing.tosa_reference import assert_close_to_torch, upcast_reference

BF16_AND_FP8 = (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)


def target_of(dtype: torch.dtype) -> str:
    return f"TOSA-1.0+FP+{EXTENSION_OF_FLOAT[dtype]}"


def tolerance(dtype: torch.dtype) -> float:
    """Two steps of the format at 1.0 (bf16: ~1e-2; fp8e4m3: 1/4, fp8e5m2: 1/2): the lowering
    and torch may round intermediate results differently once or twice."""
    return 2 * torch.finfo(dtype).eps


def assert_extension_float_close(module: torch.nn.Module, inputs: tuple, dtype: torch.dtype, scale: float = 1.0):
    """Lowers ``module`` (its float inputs and parameters in ``dtype``) for ``dtype``'s extension and
    compares with torch (for fp8, which torch cannot compute on CPU, the float32 result rounded to
    fp8); ``scale``: the magnitude of the results, for the absolute tolerance."""
    expected = upcast_reference(module, inputs, dtype) if dtype in FP8 else None
    bound = tolerance(dtype)
    return assert_close_to_torch(module, inputs, target_of(dtype), atol=bound * scale, rtol=bound, expected=expected)


def assert_needs_extension(module: torch.nn.Module, inputs: tuple, dtype: torch.dtype, op: str) -> None:
    """Without ``dtype``'s extension (plain TOSA-1.0+FP), ``op`` stays on CPU, saying which extension it needs."""
    report = compile_model(module, inputs, "TOSA-1.0+FP").report
    reasons = [entry["reason"] for entry in report["cpu_ops"] if entry["op"] == op]
    assert reasons, f"{op} was delegated without the {EXTENSION_OF_FLOAT[dtype]} extension: {report['cpu_ops']}"
    assert f"needs the TOSA {EXTENSION_OF_FLOAT[dtype]} extension" in reasons[0], reasons[0]


def assert_not_lowered(module: torch.nn.Module, inputs: tuple, dtype: torch.dtype, op: str) -> None:
    """Even with ``dtype``'s extension, ``op`` stays on CPU (TOSA 1.0 has no such operator for it)."""
    report = compile_model(module, inputs, target_of(dtype)).report
    reasons = [entry["reason"] for entry in report["cpu_ops"] if entry["op"] == op]
    assert reasons and "is not lowered" in reasons[0], report["cpu_ops"]
