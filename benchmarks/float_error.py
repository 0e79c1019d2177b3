"""How far a compiled NPU partition is from the float model: its .tosa on the TOSA reference model.

For a model that one partition computes whole (one tensor in, one out), the partition's
TOSA graph runs on the reference model with the example inputs quantized as the tool's
CPU quantize node would, and its dequantized output is compared with the float model's.
That is the integer arithmetic Vela compiles (Vela does not change it), so two tools'
partitions compare on the same footing. Models split over several partitions, or with
several inputs or outputs, are not measured (None).
"""

from __future__ import annotations

import dataclasses
import glob
import os

import numpy as np
import torch


@dataclasses.dataclass(frozen=True)
class Affine:
    scale: float
    zero_point: int
    dtype: np.dtype

    def quantize(self, x: np.ndarray) -> np.ndarray:
        info = np.iinfo(self.dtype)
        return np.clip(np.round(x / self.scale) + self.zero_point, info.min, info.max).astype(self.dtype)

    def dequantize(self, q: np.ndarray) -> np.ndarray:
        return (q.astype(np.float64) - self.zero_point) * self.scale


def _float_output(model: str) -> tuple[np.ndarray, np.ndarray] | None:
    from etarm.models import load_model

    module, inputs = load_model(model)
    if len(inputs) != 1 or not inputs[0].dtype.is_floating_point:
        return None
    with torch.no_grad():
        output = module(*inputs)
    if not isinstance(output, torch.Tensor):
        return None
    return inputs[0].numpy(), output.numpy().astype(np.float64)


def _measure(model: str, tosa_path: str, source: Affine, target: Affine) -> dict | None:
    from etarm.testing.tosa_reference import run_tosa

    reference = _float_output(model)
    if reference is None:
        return None
    x, want = reference
    with open(tosa_path, "rb") as f:
        (got,) = run_tosa(f.read(), [source.quantize(x)])
    error = np.abs(target.dequantize(np.asarray(got)).reshape(want.shape) - want)
    return {
        "rms": float(np.sqrt(np.mean(error**2))),
        "max": float(error.max()),
        "max_steps": float(error.max() / target.scale),
    }


def _affine(entry: dict) -> Affine:
    return Affine(float(entry["scale"]), int(entry["zero_point"]), np.dtype(entry["qdtype"]))


def etarm_error(model: str, report: dict, intermediates: str) -> dict | None:
    """From etarm's --report and -i directory."""
    partitions = [p for p in report["partitions"] if p.get("vela")]
    if len(partitions) != 1 or len(partitions[0]["inputs"]) != 1 or len(partitions[0]["outputs"]) != 1:
        return None
    (partition,) = partitions
    return _measure(
        model, os.path.join(intermediates, "partition_0.tosa"), _affine(partition["inputs"][0]), _affine(partition["outputs"][0])
    )


def _pte_quantize_arguments(pte_path: str) -> dict[str, list[Affine]]:
    """The (scale, zero point) of every quantize_per_tensor / dequantize_per_tensor call in a .pte."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(pte_path, "rb") as f:
        program = deserialize_pte_binary(f.read())
    plan = getattr(program, "program", program).execution_plan[0]
    found: dict[str, list[Affine]] = {"quantize_per_tensor": [], "dequantize_per_tensor": []}
    for chain in plan.chains:
        for instruction in chain.instructions:
            arguments = instruction.instr_args
            if not hasattr(arguments, "op_index"):
                continue
            name = plan.operators[arguments.op_index].name.split("::")[-1]
            if name in found:
                scale, zero_point = (plan.values[arguments.args[i]].val for i in (1, 2))
                found[name].append(Affine(scale.double_val, zero_point.int_val, np.dtype(np.int8)))
    return found


def peer_error(model: str, partitions: int, out_dir: str, intermediates: str) -> dict | None:
    """From the peer's .pte (its CPU quantize/dequantize nodes) and its intermediates' .tosa."""
    tosa = sorted(glob.glob(os.path.join(intermediates, "output_tag*.tosa")))
    ptes = glob.glob(os.path.join(out_dir, "*.pte"))
    if partitions != 1 or len(tosa) != 1 or len(ptes) != 1:
        return None
    found = _pte_quantize_arguments(ptes[0])
    if len(found["quantize_per_tensor"]) != 1 or len(found["dequantize_per_tensor"]) != 1:
        return None
    return _measure(model, tosa[0], found["quantize_per_tensor"][0], found["dequantize_per_tensor"][0])
