"""Runs lowered TOSA graphs on the TOSA reference model and compares them with torch."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import torch

from etarm.compiler import CompileResult, compile_model
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.pte import delegate_payloads
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.mapping import tensor_array


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
    array = tensor_array(tensor)
    if array.dtype == np.int64:
        if array.size and not (np.iinfo(np.int32).min <= array.min() and array.max() <= np.iinfo(np.int32).max):
            raise AssertionError("int64 input does not fit the int32 TOSA tensor it becomes")
        array = array.astype(np.int32)
    return array


def upcast_reference(module: torch.nn.Module, inputs: tuple, dtype: torch.dtype) -> list[torch.Tensor]:
    """torch's results for ``dtype`` (fp8) data it has no CPU kernels for (convolutions, pools,
    bmm, ...): the module run in float32 on the same values, each result rounded to the type
    torch gives it (which its meta kernels tell)."""
    with torch.no_grad():
        types = [r.dtype for r in _as_list(copy.deepcopy(module).to("meta")(*(t.to("meta") for t in inputs)))]
        wide = copy.deepcopy(module).float()
        results = _as_list(wide(*(t.float() if t.dtype == dtype else t for t in inputs)))
    return [result.to(type_) for result, type_ in zip(results, types)]


def lower_and_run(
    module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+FP", expected: list | None = None
) -> LoweredRun:
    """Compiles ``module`` for ``target`` (a TOSA profile; INT-only ones for integer data);
    requires ONE partition holding every op. ``expected``: torch's results when the module
    cannot run on CPU (see ``upcast_reference``).

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
    if expected is None:
        with torch.no_grad():
            expected = _as_list(module(*inputs))
    return LoweredRun(result, outputs, expected)


def assert_matches(got: np.ndarray, want: torch.Tensor, atol: float, rtol: float) -> None:
    """One reference-model output against torch's (int64 results are int32 in TOSA; bf16/fp8
    results, in ml_dtypes' types, compare as float32)."""
    want_np = tensor_array(want)
    if got.dtype.kind == "V":  # the raw bytes of a bf16/fp8 result (see run_tosa)
        got = got.view(want_np.dtype)
    if want_np.dtype == np.int64:
        want_np = want_np.astype(np.int32)
    assert got.shape == want_np.shape, f"shape {got.shape} != torch {want_np.shape}"
    assert got.dtype == want_np.dtype, f"dtype {got.dtype} != torch {want_np.dtype}"
    if want.dtype in EXTENSION_FLOATS:
        got, want_np = got.astype(np.float32), want_np.astype(np.float32)
    np.testing.assert_allclose(got, want_np, atol=atol, rtol=rtol)


def assert_close_to_torch(
    module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+FP", atol=1e-5, rtol=1e-5, expected=None
) -> LoweredRun:
    run = lower_and_run(module, inputs, target, expected)
    assert len(run.tosa_outputs) == len(run.torch_outputs)
    for got, want in zip(run.tosa_outputs, run.torch_outputs):
        assert_matches(got, want, atol, rtol)
    return run
