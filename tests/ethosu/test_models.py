"""Built-in networks on ethos-u55-128 and ethos-u85-256: what runs where, Vela's estimates,
and the numbers of the TOSA graph Vela compiled.

Every compute op runs on the NPU where the NPU family can run it, in one partition; the
ops that stay on CPU are listed exactly, with their reasons (``CPU_OPS``). The .tosa each
partition handed to Vela (after the Ethos-U rewrites) runs on the TOSA reference model
and must match the PT2E-quantized model in eager within one output step (rounding half
up where torch rounds half to even; every model matches exactly today). On ethos-u55-128
that model is the EthosUQuantizer's, whose norms and attention are split into int8 steps.
"""

from __future__ import annotations

import collections
import functools
import os
import tempfile

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.models import load_model
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.quant_params import QuantParams

TARGETS = ("ethos-u55-128", "ethos-u85-256")
MODELS = ("mlp", "cnn_bn", "inverted_residual", "ds_cnn", "transformer_block", "encoder_layer", "unet", "embedding_ids")
QDQ = frozenset(
    {"quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.default"}
)

# Ops left on CPU per (model, target): {op: reason substring}; none unless listed.
_INT64 = "is int64: Ethos-U partitions read and write int8, int16, int32 and bool tensors only"
CPU_OPS = {
    # int64 token ids: the payload carries no int64 tensors, so the ids' cast to int32 stays
    # on CPU (positions from arange are narrowed ahead of time); Ethos-U55 has no GATHER at all.
    ("embedding_ids", "ethos-u55-128"): {
        "dim_order_ops._to_dim_order_copy.default": _INT64,
        "aten.embedding.default": "needs TOSA GATHER/SCATTER, which Ethos-U55/U65 do not run",
    },
    ("embedding_ids", "ethos-u85-256"): {"dim_order_ops._to_dim_order_copy.default": _INT64},
}
# Partitions per (model, target); one unless listed. On U55 the positions (arange, int32)
# are a partition of their own before the embeddings on CPU: firmware then needs no CPU
# kernel for arange.
PARTITIONS = {("embedding_ids", "ethos-u55-128"): 2}
# The rewrites each model needs (python/etarm/ethosu/passes/); none unless listed.
REWRITES = {
    **{
        (name, target): rewrites
        for target in TARGETS
        for name, rewrites in {
            "cnn_bn": {"reductions_without_transposes": 1},  # the global average pool's mean
            "inverted_residual": {"narrow_transposes": 1},  # the residual add, before Vela fuses it
            # the global 25x5 average pool; the 1-channel input and the 1x1 pooled image to NCHW
            "ds_cnn": {"global_pools_as_sums": 1, "trivial_transposes_as_reshapes": 2},
        }.items()
    },
    # torch's head split and merge; on U55 also two head transposes whose size-1 axes stay in place
    ("encoder_layer", "ethos-u55-128"): {
        "trivial_transposes_as_reshapes": 2,
        "transposes_with_unit_axes_in_place": 2,
        "pointwise_rows_as_batch": 4,
    },
    ("unet", "ethos-u55-128"): {"nearest_resizes_as_half_pixel": 1},  # 2x nearest upsampling
    # Ethos-U85 quantizes averages with their input's parameters: one AVG_POOL2D each.
    ("cnn_bn", "ethos-u85-256"): {},
    ("ds_cnn", "ethos-u85-256"): {"trivial_transposes_as_reshapes": 2},
    # Linears over several rows take them as the batch (not the one before GELU).
    **{
        (name, target): {"pointwise_rows_as_batch": count}
        for name, count in (("mlp", 2), ("transformer_block", 3))
        for target in TARGETS
    },
    # U85: torch's rank-5 transpose of q, k and v at rank 3 (11937 -> 814 cycles).
    ("encoder_layer", "ethos-u85-256"): {
        "trivial_transposes_as_reshapes": 2,
        "transposes_at_lowest_rank": 1,
        "transposes_with_unit_axes_in_place": 2,
        "pointwise_rows_as_batch": 4,
    },
    ("embedding_ids", "ethos-u85-256"): {"pointwise_rows_as_batch": 1},  # 2096 -> 1860 cycles
    ("embedding_ids", "ethos-u55-128"): {"pointwise_rows_as_batch": 1},  # 1120 -> 1072 cycles
}


@functools.lru_cache(maxsize=None)
def compiled(name: str, target: str):
    model, inputs = load_model(name)
    directory = tempfile.mkdtemp(prefix=f"etarm_{name}_{target}_")
    return compile_model(model, inputs, target, quantize=True, intermediates_dir=directory), inputs, directory


CASES = [(name, target) for name in MODELS for target in TARGETS]


@pytest.mark.parametrize("name, target", CASES)
def test_compute_runs_on_the_npu(name, target):
    result, inputs, _ = compiled(name, target)
    report = result.report
    left = {entry["op"]: entry["reason"] for entry in report["cpu_ops"] if entry["op"] not in QDQ}
    expected = CPU_OPS.get((name, target), {})
    assert sorted(left) == sorted(expected), f"ops on CPU: {left}"
    for op, reason in expected.items():
        assert reason in left[op], f"{op}: {left[op]}"
    partitions = report["partitions"]
    assert len(partitions) == PARTITIONS.get((name, target), 1)
    rewrites = collections.Counter()
    for partition in partitions:
        assert partition["backend"] == "EthosUBackend"
        assert partition["vela"]["npu_operators"] > 0 and partition["vela"].get("cpu_operators", 0) == 0
        rewrites.update(partition.get("npu_rewrites", {}))
    assert dict(rewrites) == REWRITES.get((name, target), {})
    if not expected:  # only the input quantize and output dequantize nodes on CPU
        qdq = [entry for entry in report["cpu_ops"] if entry["op"] in QDQ]
        assert len(qdq) == len(report["inputs"]) + len(report["outputs_from"])


@pytest.mark.parametrize("name, target", CASES)
def test_vela_estimates_in_the_report(name, target):
    result, _, directory = compiled(name, target)
    vela = result.report["partitions"][0]["vela"]
    assert (vela["vela_version"], vela["accelerator"]) == ("5.2.0", target)
    assert vela["cycles_total"] >= vela["cycles_npu"] > 0 and vela["macs"] > 0
    assert vela["inference_time_s"] == pytest.approx(vela["cycles_total"] / vela["core_clock_hz"], rel=1e-3)
    assert vela["sram_bytes"] > 0 and vela["flash_bytes"] + vela["dram_bytes"] >= vela["weight_data_bytes"]
    assert os.path.isfile(os.path.join(directory, f"partition_0_summary_{vela['system_config']}.csv"))


def _run_partition_tosa(result, inputs, directory) -> list[torch.Tensor]:
    """Runs the .tosa Vela compiled on the reference model, its inputs quantized as the CPU's
    quantize nodes would (one partition reading the model's inputs in order)."""
    (partition,) = result.report["partitions"]
    arrays = []
    for tensor, entry in zip(inputs, partition["inputs"], strict=True):
        arrays.append(QuantParams.from_report(entry).quantize(tensor).numpy() if "scale" in entry else tensor.numpy())
    with open(os.path.join(directory, "partition_0.tosa"), "rb") as f:
        outputs = run_tosa(f.read(), arrays)
    return [
        QuantParams.from_report(partition["outputs"][index]).dequantize(torch.from_numpy(np.asarray(outputs[index])))
        for _partition, index in result.report["outputs_from"]
    ]


@pytest.mark.parametrize("name, target", [c for c in CASES if c not in CPU_OPS])
def test_compiled_tosa_matches_the_quantized_model(name, target):
    result, inputs, directory = compiled(name, target)
    got = _run_partition_tosa(result, inputs, directory)
    with torch.no_grad():
        want = result.quantized_model(*inputs)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        scale = float(result.report["partitions"][0]["outputs"][result.report["outputs_from"][index][1]]["scale"])
        error = float((g - w).abs().max()) / scale
        assert error <= 1 + 1e-3, f"output {index} differs by {error:.2f} LSB"
