"""Runs lowered TOSA graphs on the TOSA reference model and compares them with torch."""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
import tosa_reference_model

from etarm.compiler import CompileResult, compile_model
from etarm.pte import delegate_payloads


def run_tosa(flatbuffer: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Runs a TOSA flatbuffer; raises if the reference model rejects the graph."""
    outputs, status = tosa_reference_model.run(flatbuffer, inputs)
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise AssertionError(f"TOSA reference model: {status}")
    return list(outputs)


@dataclasses.dataclass
class LoweredRun:
    result: CompileResult
    tosa_outputs: list[np.ndarray]
    torch_outputs: list[torch.Tensor]


def _as_list(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    return [v for v in value]


def lower_and_run(module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+FP") -> LoweredRun:
    """Compiles ``module`` for ``target``; requires ONE partition holding every op.

    The partition's inputs are the module's inputs in order, so the payload runs on
    the reference model with them directly.
    """
    result = compile_model(module, inputs, target)
    report = result.report
    assert not report["cpu_ops"], f"ops left on CPU: {report['cpu_ops']}"
    assert len(report["partitions"]) == 1, f"expected one partition, got {len(report['partitions'])}"
    (payload,) = delegate_payloads(result.pte)
    tensor_inputs = [t for t in inputs if isinstance(t, torch.Tensor)]
    arrays = [t.detach().numpy() for t in tensor_inputs]
    if [list(a.shape) for a in arrays] != [i["shape"] for i in report["partitions"][0]["inputs"]]:
        raise AssertionError("partition inputs differ from the module inputs; compare per partition instead")
    outputs = run_tosa(payload.data, arrays)
    with torch.no_grad():
        expected = _as_list(module(*inputs))
    return LoweredRun(result, outputs, expected)


def assert_close_to_torch(module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+FP", atol=1e-5, rtol=1e-5) -> LoweredRun:
    run = lower_and_run(module, inputs, target)
    assert len(run.tosa_outputs) == len(run.torch_outputs)
    for got, want in zip(run.tosa_outputs, run.torch_outputs):
        want_np = want.detach().numpy()
        assert got.shape == want_np.shape, f"shape {got.shape} != torch {want_np.shape}"
        if want_np.dtype == np.int64:
            want_np = want_np.astype(np.int32)
        np.testing.assert_allclose(got.astype(want_np.dtype), want_np, atol=atol, rtol=rtol)
    return run
