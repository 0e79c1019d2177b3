"""Runs lowered TOSA graphs on the TOSA reference model and compares them with torch."""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from etarm.compiler import CompileResult, compile_model
from etarm.pte import delegate_payloads
from etarm.tosa.reference_model import run_tosa


@dataclasses.dataclass
class LoweredRun:
    result: CompileResult
    tosa_outputs: list[np.ndarray]
    torch_outputs: list[torch.Tensor]


def _as_list(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    return [v for v in value]


def reference_input(tensor: torch.Tensor) -> np.ndarray:
    """The array the reference model takes for a graph input: int64 inputs are int32 TOSA tensors."""
    array = tensor.detach().numpy()
    if array.dtype == np.int64:
        if array.size and not (np.iinfo(np.int32).min <= array.min() and array.max() <= np.iinfo(np.int32).max):
            raise AssertionError("int64 input does not fit the int32 TOSA tensor it becomes")
        array = array.astype(np.int32)
    return array


def lower_and_run(module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+FP") -> LoweredRun:
    """Compiles ``module`` for ``target`` (a TOSA profile; INT-only ones for integer data);
    requires ONE partition holding every op.

    The partition's inputs and outputs are matched to the module's through the report
    (``inputs_from``, ``outputs_from``): a partition orders them as its graph does.
    """
    # An INT-only profile compiles integer data through the quantized flow (nothing to quantize).
    result = compile_model(module, inputs, target, quantize="FP" not in target.upper().split("+"))
    report = result.report
    assert not report["cpu_ops"], f"ops left on CPU: {report['cpu_ops']}"
    assert len(report["partitions"]) == 1, f"expected one partition, got {len(report['partitions'])}"
    (payload,) = delegate_payloads(result.pte)
    (partition,) = report["partitions"]
    tensor_inputs = [t for t in inputs if isinstance(t, torch.Tensor)]
    assert None not in partition["inputs_from"], "a partition input is not a module input"
    arrays = [reference_input(tensor_inputs[i]) for i in partition["inputs_from"]]
    partition_outputs = run_tosa(payload.data, arrays)
    assert all(source is not None for source in report["outputs_from"]), "a module output is not a partition output"
    outputs = [partition_outputs[index] for _partition, index in report["outputs_from"]]
    with torch.no_grad():
        expected = _as_list(module(*inputs))
    return LoweredRun(result, outputs, expected)


def assert_matches(got: np.ndarray, want: torch.Tensor, atol: float, rtol: float) -> None:
    """One reference-model output against torch's (int64 results are int32 in TOSA)."""
    want_np = want.detach().numpy()
    if want_np.dtype == np.int64:
        want_np = want_np.astype(np.int32)
    assert got.shape == want_np.shape, f"shape {got.shape} != torch {want_np.shape}"
    np.testing.assert_allclose(got.astype(want_np.dtype), want_np, atol=atol, rtol=rtol)


def assert_close_to_torch(module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+FP", atol=1e-5, rtol=1e-5) -> LoweredRun:
    run = lower_and_run(module, inputs, target)
    assert len(run.tosa_outputs) == len(run.torch_outputs)
    for got, want in zip(run.tosa_outputs, run.torch_outputs):
        assert_matches(got, want, atol, rtol)
    return run
