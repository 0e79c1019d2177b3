"""Runs INT-profile partitions on the TOSA reference model and compares them with PT2E.

``assert_quantized_close(module, inputs)`` quantizes ``module`` through the real flow
(``compile_model(..., quantize=True)``: export, prepare_pt2e, calibrate, convert_pt2e,
re-export, partition, lower), requires one partition with only the boundary
quantize/dequantize nodes left on CPU, quantizes the inputs with the partition
inputs' parameters (as those CPU nodes would), runs the TOSA payload, dequantizes its
outputs and compares them with the convert_pt2e'd model run in eager. Both sides
end on the same integer grid, so the difference is counted in output steps (LSB).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch

from etarm.compiler import CompileResult, compile_model
from etarm.lowering.quantized_support import INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON
from etarm.pte import delegate_payloads
from etarm.testing.tosa_reference import reference_input
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.quant_params import QuantParams


@dataclasses.dataclass
class QuantizedRun:
    result: CompileResult
    input_qparams: list[QuantParams]
    output_qparams: list[QuantParams | None]  # None: a bool or integer output, not quantized
    tosa_outputs: list[np.ndarray]  # the integers the partition produced
    dequantized: list[torch.Tensor]  # ... as real values
    expected: list[torch.Tensor]  # the convert_pt2e'd model in eager

    def lsb_errors(self) -> list[float]:
        """Largest difference of each output, in steps of its output scale (an unquantized
        output: 0 when equal, else infinite)."""
        errors = []
        for got, want, qparams in zip(self.dequantized, self.expected, self.output_qparams):
            if qparams is None:
                errors.append(0.0 if torch.equal(got.to(want.dtype), want) else math.inf)
                continue
            errors.append(float((got - want).abs().max() / float(qparams.scale)) if got.numel() else 0.0)
        return errors


def _as_list(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    return list(value)


def inner_cpu_ops(report: dict) -> list[dict]:
    """The report's CPU ops but for the quantize/dequantize nodes at the partition boundary."""
    boundary = {INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON}
    return [op for op in report["cpu_ops"] if op["reason"] not in boundary]


def lower_and_run_quantized(
    module: torch.nn.Module, inputs: tuple, target: str = "TOSA-1.0+INT", calibration_data=None, quantizer=None
) -> QuantizedRun:
    """Quantizes and lowers ``module`` (``quantizer``: default the target's) and runs it both ways."""
    result = compile_model(
        module, inputs, target, quantize=True, calibration_data=calibration_data, quantizer=quantizer
    )
    report = result.report
    inner = inner_cpu_ops(report)
    assert not inner, f"ops left on CPU: {inner}"
    assert len(report["partitions"]) == 1, f"expected one partition, got {len(report['partitions'])}"
    partition = report["partitions"][0]
    (payload,) = delegate_payloads(result.pte)
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
    assert None not in partition["inputs_from"], "a partition input is not a module input (or its quantize)"
    input_qparams, arrays = [], []
    for source, entry in zip(partition["inputs_from"], partition["inputs"]):
        tensor = tensors[source]
        assert list(tensor.shape) == entry["shape"], f"input shape {list(tensor.shape)} != partition {entry['shape']}"
        if "scale" not in entry:  # integer data (e.g. int64 ids) enters unquantized
            arrays.append(reference_input(tensor))
            continue
        qparams = QuantParams.from_report(entry)
        input_qparams.append(qparams)
        arrays.append(qparams.quantize(tensor).numpy())
    partition_outputs = run_tosa(payload.data, arrays)
    # A partition orders its outputs as its graph does: the report maps them to the module's.
    assert all(source is not None for source in report["outputs_from"]), "a module output is not a partition output"
    order = [index for _partition, index in report["outputs_from"]]
    outputs = [partition_outputs[index] for index in order]
    entries = [partition["outputs"][index] for index in order]
    output_qparams = [QuantParams.from_report(entry) if "scale" in entry else None for entry in entries]
    dequantized = [
        q.dequantize(torch.from_numpy(np.asarray(o))) if q is not None else torch.from_numpy(np.asarray(o))
        for o, q in zip(outputs, output_qparams)
    ]
    with torch.no_grad():
        expected = _as_list(result.quantized_model(*inputs))
    return QuantizedRun(result, input_qparams, output_qparams, outputs, dequantized, expected)


def assert_quantized_close(
    module: torch.nn.Module,
    inputs: tuple,
    target: str = "TOSA-1.0+INT",
    max_lsb: float = 1.0,
    calibration_data=None,
    quantizer=None,
) -> QuantizedRun:
    """Every output within ``max_lsb`` output steps of the quantized model in eager."""
    run = lower_and_run_quantized(module, inputs, target, calibration_data, quantizer)
    assert len(run.dequantized) == len(run.expected)
    for got, want in zip(run.dequantized, run.expected):
        assert got.shape == want.shape, f"shape {tuple(got.shape)} != torch {tuple(want.shape)}"
    for index, error in enumerate(run.lsb_errors()):
        # A hair over an integer count of steps is float rounding of equal grids.
        assert error <= max_lsb + 1e-3, f"output {index} differs by {error:.3f} LSB (allowed {max_lsb})"
    return run
