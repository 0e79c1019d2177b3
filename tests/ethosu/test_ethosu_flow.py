"""Ethos-U end to end: quantize, partition, lower to TOSA, Vela, payload in the .pte.

An MLP and a small CNN for ethos-u55-128 and ethos-u85-256 (support decisions and
failure handling: test_ethosu_support.py)."""

import os

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.ethosu import EthosUCompileSpec, EthosUPayload
from etarm.models import load_model
from etarm.pte import delegate_payloads
from etarm.tosa.reference_model import run_tosa

BOUNDARY_OPS = {"quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.default"}
VELA_KEYS = {
    "vela_version", "accelerator", "system_config", "memory_mode", "direct_drive", "core_clock_hz", "cycles_total",
    "cycles_npu", "inference_time_s", "inferences_per_second", "macs", "sram_bytes", "dram_bytes", "flash_bytes",
    "weights_area",
    "feature_map_area", "original_weights_bytes", "encoded_weights_bytes", "command_stream_bytes",
    "weight_data_bytes", "scratch_bytes", "fast_scratch_bytes", "npu_operators", "vela_seconds",
}  # fmt: skip


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(self.pool(x), 1))


def _model(name):
    torch.manual_seed(0)
    if name == "mlp":
        return load_model("mlp")
    return SmallCnn().eval(), (torch.randn(1, 3, 16, 16),)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """MLP and CNN for ethos-u55-128 and ethos-u85-256, each compiled once (with -i)."""
    results = {}
    for name in ("mlp", "cnn"):
        for target in ("ethos-u55-128", "ethos-u85-256"):
            model, inputs = _model(name)
            directory = str(tmp_path_factory.mktemp(f"{name}_{target}"))
            results[name, target] = (compile_model(model, inputs, target, quantize=True, intermediates_dir=directory), directory)
    return results


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_all_compute_runs_on_the_npu(compiled, name, target):
    result, _ = compiled[name, target]
    (partition,) = result.report["partitions"]
    assert partition["backend"] == "EthosUBackend"
    assert {op["op"] for op in result.report["cpu_ops"]} <= BOUNDARY_OPS
    assert len(result.report["cpu_ops"]) == 2  # quantize the input, dequantize the output
    vela = partition["vela"]
    assert vela["npu_operators"] > 0 and vela.get("cpu_operators", 0) == 0
    (payload,) = delegate_payloads(result.pte)
    assert payload.backend_id == "EthosUBackend"


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_report_carries_vela_estimates(compiled, name, target):
    result, _ = compiled[name, target]
    vela = result.report["partitions"][0]["vela"]
    assert set(vela) - {"cpu_operators"} == VELA_KEYS
    assert (vela["vela_version"], vela["accelerator"]) == ("5.2.0", target)
    spec = EthosUCompileSpec(target)
    assert (vela["system_config"], vela["memory_mode"]) == (spec.system_config, spec.memory_mode)
    assert vela["core_clock_hz"] == spec.core_clock_hz()
    assert vela["cycles_total"] >= vela["cycles_npu"] > 0
    assert vela["inference_time_s"] == pytest.approx(vela["cycles_total"] / vela["core_clock_hz"], rel=1e-3)
    # MLP: 2 rows x (16x32 + 32x10) multiply-accumulates; the CNN at least its convolutions and linear.
    if name == "mlp":
        assert vela["macs"] == 2 * (16 * 32 + 32 * 10)
    else:
        assert vela["macs"] >= 16 * 16 * 8 * 27 + 8 * 8 * 16 * 72 + 160
    if target == "ethos-u55-128":  # Shared_Sram: weights in flash, the arena in SRAM
        assert vela["weights_area"] == "Off-chip Flash" and vela["feature_map_area"] == "SRAM"
        assert vela["flash_bytes"] >= vela["weight_data_bytes"] > 0 and vela["sram_bytes"] > 0
    else:  # Dedicated_Sram: weights and arena in DRAM, SRAM as a cache
        assert vela["weights_area"] == "DRAM" and vela["feature_map_area"] == "DRAM"
        assert vela["dram_bytes"] >= vela["weight_data_bytes"] > 0


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_payload_describes_the_partition(compiled, name, target):
    result, _ = compiled[name, target]
    partition = result.report["partitions"][0]
    (data,) = delegate_payloads(result.pte)
    payload = EthosUPayload.from_bytes(data.data)
    assert payload.cmd_data[:4] == b"COP1"  # Vela's driver command stream
    assert len(payload.cmd_data) == partition["vela"]["command_stream_bytes"]
    assert len(payload.weight_data) == partition["vela"]["weight_data_bytes"]
    assert payload.scratch_size == partition["vela"]["scratch_bytes"]
    assert payload.fast_scratch_size == partition["vela"]["fast_scratch_bytes"]
    for placed, entry in zip(payload.inputs + payload.outputs, partition["inputs"] + partition["outputs"], strict=True):
        assert (list(placed.shape), placed.dtype, placed.layout) == (entry["shape"], entry["dtype"], "contiguous")
        assert placed.region == 1 and 0 <= placed.offset and placed.offset + placed.nbytes <= payload.scratch_size


def test_intermediates_directory_keeps_tosa_and_vela_outputs(compiled):
    result, directory = compiled["mlp", "ethos-u55-128"]
    assert sorted(os.listdir(directory)) == [
        "partition_0.ethosu.bin",
        "partition_0.tosa",
        "partition_0_debug.xml",  # Vela's debug database (the debug map's NPU operations)
        "partition_0_summary_Ethos_U55_High_End_Embedded.csv",
        "partition_0_vela.npz",
    ]
    partition = result.report["partitions"][0]
    assert partition["tosa_file"] == os.path.join(directory, "partition_0.tosa")
    (payload,) = delegate_payloads(result.pte)
    with open(os.path.join(directory, "partition_0.ethosu.bin"), "rb") as f:
        assert f.read() == payload.data
    with np.load(os.path.join(directory, "partition_0_vela.npz"), allow_pickle=False) as raw:
        assert int(raw["scratch_size"]) == partition["vela"]["scratch_bytes"]
    # The .tosa Vela compiled is a valid TOSA INT graph: it runs on the reference model.
    with open(partition["tosa_file"], "rb") as f:
        (out,) = run_tosa(f.read(), [np.zeros(partition["inputs"][0]["shape"], dtype=np.int8)])
    assert list(out.shape) == partition["outputs"][0]["shape"] and out.dtype == np.int8
