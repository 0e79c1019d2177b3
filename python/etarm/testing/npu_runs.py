"""Compiles a quantized module for an Ethos-U target and requires all of it on the NPU."""

from __future__ import annotations

import torch

from etarm.compiler import CompileResult, compile_model
from etarm.testing.quantized_reference import inner_cpu_ops


def assert_all_on_npu(module: torch.nn.Module, inputs: tuple, target: str, quantizer=None) -> CompileResult:
    """Quantized for ``target`` (``quantizer``: default the target's): one partition, only the
    boundary quantize/dequantize nodes on CPU, and no operator Vela put back on the CPU."""
    result = compile_model(module, inputs, target, quantize=True, quantizer=quantizer)
    report = result.report
    inner = inner_cpu_ops(report)
    assert not inner, f"ops left on CPU: {inner}"
    assert len(report["partitions"]) == 1, f"expected one partition, got {len(report['partitions'])}"
    assert report["partitions"][0]["vela"].get("cpu_operators", 0) == 0, report["partitions"][0]["vela"]
    return result
