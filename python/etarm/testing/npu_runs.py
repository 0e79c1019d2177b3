"""Compiles a quantized module for an Ethos-U target and requires all of it on the NPU, and
(assert_bit_exact_on_npu_model) its command stream bit-exact on the NPU model."""

from __future__ import annotations

import tempfile

import torch

from etarm.compiler import CompileResult, compile_model
from etarm.testing.npu_model_reference import partition_differences
from etarm.testing.quantized_reference import inner_cpu_ops


def assert_all_on_npu(
    module: torch.nn.Module,
    inputs: tuple,
    target: str,
    quantizer=None,
    on_cpu: dict[str, str] | None = None,
    intermediates_dir: str | None = None,
) -> CompileResult:
    """Quantized for ``target`` (``quantizer``: default the target's): one partition, only the
    boundary quantize/dequantize nodes on CPU (and the ops of ``on_cpu``, op -> a part of the
    reason it stays there), and no operator Vela put back on the CPU."""
    result = compile_model(
        module, inputs, target, quantize=True, quantizer=quantizer, intermediates_dir=intermediates_dir
    )
    report = result.report
    expected = on_cpu or {}
    found = {entry["op"]: entry["reason"] for entry in inner_cpu_ops(report)}
    assert sorted(found) == sorted(expected), f"ops left on CPU: {found}"
    assert all(expected[op] in reason for op, reason in found.items()), found
    assert len(report["partitions"]) == 1, f"expected one partition, got {len(report['partitions'])}"
    assert report["partitions"][0]["vela"].get("cpu_operators", 0) == 0, report["partitions"][0]["vela"]
    return result


def assert_bit_exact_on_npu_model(
    module: torch.nn.Module, inputs: tuple, target: str, seed: int, on_cpu: dict[str, str] | None = None
) -> None:
    """assert_all_on_npu, and the partition's command stream run on the NPU model computes what
    its TOSA graph computes on the TOSA reference model, bit for bit, for one random input set
    drawn from ``seed`` (the extreme sets are the operator tests', test_op_coverage.py)."""
    with tempfile.TemporaryDirectory() as intermediates:
        report = assert_all_on_npu(module, inputs, target, on_cpu=on_cpu, intermediates_dir=intermediates).report
        differences = partition_differences(report["partitions"][0], target, seed, extremes=False)
    assert differences == {}
