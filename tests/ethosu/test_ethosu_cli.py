"""`etarm compile -t ethos-u...` through the CLI process: the estimates table, the report,
-i outputs, and errors as one line without a traceback."""

import json
import os

from etarm.ethosu import EthosUPayload
from etarm.pte import delegate_payloads
from etarm.testing.cli import run_cli


def test_compile_for_ethos_u85_with_system_config_and_memory_mode(tmp_path):
    pte, report_path, intermediates = tmp_path / "mlp.pte", tmp_path / "report.json", tmp_path / "int"
    proc = run_cli(
        "compile", "-m", "mlp", "-t", "ethos-u85-256", "-q", "-o", str(pte), "-i", str(intermediates),
        "--report", str(report_path), "--system_config", "Ethos_U85_SYS_DRAM_High", "--memory_mode", "Shared_Sram",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = "Vela 5.2.0 estimates: ethos-u85-256, Ethos_U85_SYS_DRAM_High, Shared_Sram, 1000 MHz"
    row = lines[lines.index(header) + 2].split()
    assert lines[lines.index(header) + 1].split() == [
        "part", "cycles", "NPU", "cycles", "time", "us", "inf/s", "MACs", "SRAM", "B", "flash", "B", "DRAM", "B",
    ]  # fmt: skip
    report = json.loads(report_path.read_text())
    (partition,) = report["partitions"]
    vela = partition["vela"]
    assert row == [
        "0", str(vela["cycles_total"]), str(vela["cycles_npu"]), f"{vela['inference_time_s'] * 1e6:.2f}",
        f"{vela['inferences_per_second']:.0f}", str(vela["macs"]), str(vela["sram_bytes"]), str(vela["flash_bytes"]),
        str(vela["dram_bytes"]),
    ]  # fmt: skip
    assert (vela["system_config"], vela["memory_mode"], vela["macs"]) == ("Ethos_U85_SYS_DRAM_High", "Shared_Sram", 1664)
    assert report["target"] == "ethos-u85-256" and report["quantized"] is True
    assert sorted(os.listdir(intermediates)) == [
        "partition_0.ethosu.bin",
        "partition_0.tosa",
        "partition_0_debug.xml",
        "partition_0_summary_Ethos_U85_SYS_DRAM_High.csv",
        "partition_0_vela.npz",
    ]
    (payload,) = delegate_payloads(pte.read_bytes())
    assert payload.backend_id == "EthosUBackend"
    assert EthosUPayload.from_bytes(payload.data).scratch_size == vela["scratch_bytes"]


def _error(proc) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = [l for l in proc.stderr.splitlines() if l.startswith("etarm: error: ")]
    return line


def test_ethos_u_needs_quantization(tmp_path):
    proc = run_cli("compile", "-m", "mlp", "-t", "ethos-u55-128", "-o", str(tmp_path / "x.pte"))
    assert _error(proc) == (
        "etarm: error: target 'ethos-u55-128' runs integer models only: add -q (quantize=True) to quantize the model"
    )


def test_memory_mode_that_does_not_fit_the_npu(tmp_path):
    proc = run_cli("compile", "-m", "mlp", "-t", "ethos-u55-128", "-q", "--memory_mode", "Dedicated_Sram", "-o", str(tmp_path))
    assert _error(proc) == (
        "etarm: error: memory mode 'Dedicated_Sram' puts the arena (scratch) on AXI1, which is read-only on "
        "Ethos-U55: use Shared_Sram or Sram_Only"
    )


GAP_MODEL = '''
import torch
import etarm.ethosu.backend
import etarm.ethosu.operator_support

# Simulate a support-rule gap so the bilinear resize reaches Vela, which refuses it on U55.
etarm.ethosu.operator_support._RULES["aten.upsample_bilinear2d.vec"] = lambda node, target: None
etarm.ethosu.backend.check_graph = lambda graph, family: []

torch.manual_seed(0)
ModelUnderTest = torch.nn.Sequential(torch.nn.Conv2d(4, 4, 1), torch.nn.Upsample(scale_factor=2, mode="bilinear")).eval()
ModelInputs = (torch.randn(1, 4, 17, 17),)
'''


def test_vela_failure_is_one_clear_message(tmp_path):
    model = tmp_path / "gap.py"
    model.write_text(GAP_MODEL)
    proc = run_cli("compile", "-m", str(model), "-t", "ethos-u55-128", "-q", "-o", str(tmp_path))
    assert _error(proc) == (
        "etarm: error: Vela ethos-u55-128 (Ethos_U55_High_End_Embedded, Shared_Sram) failed: "
        "Non-passthrough operation (Resize) could not run on NPU"
    )
    assert "  the Resize comes from: aten.upsample_bilinear2d.vec (node 'aten_upsample_bilinear2d_vec')" in proc.stderr


def test_exact_composites_keep_attention_whole_on_u55(tmp_path):
    """--exact_composites: the U55 quantizer keeps transformer_block's norms and attention whole."""
    for flags in ((), ("--exact_composites",)):
        report_path = tmp_path / "report.json"
        proc = run_cli(
            "compile", "-m", "transformer_block", "-t", "ethos-u55-128", "-q", *flags, "-o", str(tmp_path),
            "--report", str(report_path),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        (partition,) = json.loads(report_path.read_text())["partitions"]
        whole = "aten.scaled_dot_product_attention.default" in partition["aten_ops"]
        assert whole == bool(flags) and ("aten.native_layer_norm.default" in partition["aten_ops"]) == bool(flags)


def test_exact_composites_is_an_ethos_u_option(tmp_path):
    proc = run_cli("compile", "-m", "mlp", "-t", "TOSA-1.0+INT", "-q", "--exact_composites", "-o", str(tmp_path))
    assert _error(proc) == (
        "etarm: error: --exact_composites applies to Ethos-U targets only, not 'TOSA-1.0+INT'"
    )
