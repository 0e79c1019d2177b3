"""How far a compiled NPU partition is from the float model: its .tosa on the TOSA reference model.

For a model that one partition computes whole (one tensor in, one out), the partition's
TOSA graph runs on the reference model with the example inputs quantized as the tool's
CPU quantize node would, and its dequantized output is compared with the float model's.
That is the integer arithmetic Vela compiles (Vela does not change it), so two tools'
partitions compare on the same footing. Models split over several partitions, or with
several inputs or outputs, are not measured (None).
"""

from __future__ import annotations

import glob
import os

import numpy as np
import torch

# etarm is imported inside the functions: ethosu.py imports this file while its own
# directory, whose ethosu.py would shadow Vela's package, is still on the import path.


def float_reference(model: str) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The float model's one input and one output, or None when it has several or integer ones."""
    from etarm.models import load_model

    module, inputs = load_model(model)
    if len(inputs) != 1 or not inputs[0].dtype.is_floating_point:
        return None
    with torch.no_grad():
        output = module(*inputs)
    return (inputs[0], output) if isinstance(output, torch.Tensor) else None


def _measure(reference, tosa_path: str, source, target) -> dict | None:
    """``source``/``target``: the QuantParams of the partition's input and output."""
    from etarm.tosa.reference_model import run_tosa

    if reference is None:
        return None
    x, want = reference
    with open(tosa_path, "rb") as f:
        (got,) = run_tosa(f.read(), [source.quantize(x).numpy()])
    error = (target.dequantize(torch.from_numpy(np.asarray(got))).reshape(want.shape).double() - want.double()).abs()
    return {
        "rms": float(error.square().mean().sqrt()),
        "max": float(error.max()),
        "max_steps": float(error.max() / target.scale),
    }


def etarm_error(reference, report: dict, intermediates: str) -> dict | None:
    """From etarm's --report and -i directory; ``reference``: float_reference()."""
    partitions = [p for p in report["partitions"] if p.get("vela")]
    if len(partitions) != 1 or len(partitions[0]["inputs"]) != 1 or len(partitions[0]["outputs"]) != 1:
        return None
    from etarm.tosa_ir.quant_params import QuantParams

    (partition,) = partitions
    source, target = (QuantParams.from_report(partition[side][0]) for side in ("inputs", "outputs"))
    return _measure(reference, os.path.join(intermediates, "partition_0.tosa"), source, target)


def _pte_quantize_arguments(pte_path: str) -> dict[str, list]:
    """The int8 QuantParams of every quantize_per_tensor / dequantize_per_tensor call in a .pte."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    from etarm.tosa_ir.quant_params import QuantParams

    with open(pte_path, "rb") as f:
        program = deserialize_pte_binary(f.read())
    plan = getattr(program, "program", program).execution_plan[0]
    found: dict[str, list] = {"quantize_per_tensor": [], "dequantize_per_tensor": []}
    for chain in plan.chains:
        for instruction in chain.instructions:
            arguments = instruction.instr_args
            if not hasattr(arguments, "op_index"):
                continue
            name = plan.operators[arguments.op_index].name.split("::")[-1]
            if name in found:
                scale, zero_point = (plan.values[arguments.args[i]].val for i in (1, 2))
                found[name].append(QuantParams(scale.double_val, zero_point.int_val, -128, 127, torch.int8))
    return found


def peer_error(reference, partitions: int, out_dir: str, intermediates: str) -> dict | None:
    """From the peer's .pte (its CPU quantize/dequantize nodes) and its intermediates' .tosa."""
    tosa = sorted(glob.glob(os.path.join(intermediates, "output_tag*.tosa")))
    ptes = glob.glob(os.path.join(out_dir, "*.pte"))
    if partitions != 1 or len(tosa) != 1 or len(ptes) != 1:
        return None
    found = _pte_quantize_arguments(ptes[0])
    if len(found["quantize_per_tensor"]) != 1 or len(found["dequantize_per_tensor"]) != 1:
        return None
    return _measure(reference, tosa[0], found["quantize_per_tensor"][0], found["dequantize_per_tensor"][0])
