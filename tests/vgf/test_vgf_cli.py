"""`etarm compile -t vgf` through the CLI process: FP by default, INT with -q, the converter's
summary line and report, -i outputs, converter flags, and errors as one line without a traceback."""

import json
import os

from etarm.pte import delegate_payloads
from etarm.testing.cli import run_cli


def _compile(tmp_path, *flags):
    pte, report_path, intermediates = tmp_path / "mlp.pte", tmp_path / "report.json", tmp_path / "int"
    proc = run_cli(
        "compile", "-m", "mlp", "-t", "vgf", *flags, "-o", str(pte), "-i", str(intermediates), "--report", str(report_path)
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines(), json.loads(report_path.read_text()), pte.read_bytes(), intermediates


def test_float_model_with_the_fp_profile(tmp_path):
    lines, report, pte, intermediates = _compile(tmp_path)
    (partition,) = report["partitions"]
    vgf = partition["vgf"]
    assert lines[:4] == [
        "target      vgf",
        "partition 0 VgfBackend: aten.linear.default, aten.relu.default",
        f"  vgf 0: {vgf['vgf_bytes']} bytes, graph_segment_0 (graph); model-converter 0.11.0 "
        f"in {vgf['converter_seconds']:.2f} s",
        "on CPU      none",
    ]
    assert report["quantized"] is False and [e["dtype"] for e in partition["inputs"]] == ["float32"]
    assert sorted(os.listdir(intermediates)) == ["partition_0.tosa", "partition_0.vgf"]
    (payload,) = delegate_payloads(pte)
    assert payload.backend_id == "VgfBackend" and payload.data == (intermediates / "partition_0.vgf").read_bytes()
    specs = {spec.key: spec.value for spec in payload.compile_specs}
    assert specs["tosa_spec"] == b"TOSA-1.0+FP" and specs["vgf_compiler_flags"] == b"[]"


def test_quantized_model_with_the_int_profile_and_converter_flags(tmp_path):
    lines, report, pte, _ = _compile(tmp_path, "-q", "--converter_flags=--disable-replicated-composites")
    (partition,) = report["partitions"]
    assert report["quantized"] is True and [e["dtype"] for e in partition["inputs"]] == ["int8"]
    assert partition["vgf"]["converter_flags"] == ["--disable-replicated-composites"]
    (payload,) = delegate_payloads(pte)
    specs = {spec.key: spec.value for spec in payload.compile_specs}
    assert specs["tosa_spec"] == b"TOSA-1.0+INT" and payload.data[:4] == b"VGF1"
    assert specs["vgf_compiler_flags"] == b'["--disable-replicated-composites"]'


def _error(proc) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = [entry for entry in proc.stderr.splitlines() if entry.startswith("etarm: error: ")]
    return line


def test_a_flag_the_converter_does_not_know(tmp_path):
    proc = run_cli("compile", "-m", "add", "-t", "vgf", "--converter_flags=--bogus", "-o", str(tmp_path))
    line = _error(proc)
    assert line.startswith(
        "etarm: error: model-converter failed on the partition (aten.add.Tensor): exit status 255: "
        "Unknown argument: --bogus; Error creating parser; reproduce with: "
    )
    assert line.endswith("/partition_0.vgf") and " --bogus --input " in line


def test_a_flag_that_changes_the_io_contract_is_refused(tmp_path):
    proc = run_cli("compile", "-m", "add", "-t", "vgf", "--converter_flags=--type-narrowing full", "-o", str(tmp_path))
    assert _error(proc) == (
        "etarm: error: compiler_flags may not set --type-narrowing: it makes the graph's inputs and outputs fp16, "
        "which the VGF delegate does not convert"
    )


BROKEN_TOSA_MODEL = """
import dataclasses
import torch
import etarm.vgf.backend

real = etarm.vgf.backend.lower_to_tosa
# Simulate a graph the converter cannot read: the flatbuffer cut short.
etarm.vgf.backend.lower_to_tosa = lambda *a, **k: dataclasses.replace(real(*a, **k), flatbuffer=real(*a, **k).flatbuffer[:64])

ModelUnderTest = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()).eval()
ModelInputs = (torch.randn(1, 4),)
"""


def test_converter_failure_names_the_partition_and_the_command(tmp_path):
    model = tmp_path / "broken.py"
    model.write_text(BROKEN_TOSA_MODEL)
    proc = run_cli("compile", "-m", str(model), "-t", "vgf", "-o", str(tmp_path), "-i", str(tmp_path / "int"))
    line = _error(proc)
    assert line.startswith(
        "etarm: error: model-converter failed on partition_0 (aten.linear.default, aten.relu.default): exit status 255: "
    )
    assert "reproduce with: " in line and line.endswith(
        f"--input {tmp_path}/int/partition_0.tosa --output {tmp_path}/int/partition_0.vgf"
    )
    assert (tmp_path / "int" / "partition_0.tosa").stat().st_size == 64


def test_converter_flags_belong_to_vgf(tmp_path):
    proc = run_cli(
        "compile", "-m", "add", "-t", "TOSA-1.0+FP", "--converter_flags=--emit-debug-info", "-o", str(tmp_path)
    )
    assert _error(proc) == "etarm: error: --converter_flags applies to VGF targets only, not 'TOSA-1.0+FP'"
