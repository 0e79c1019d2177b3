"""`etarm compile` end to end through the built py_binary, and its error paths."""

import json
import subprocess

import numpy as np
import pytest

from etarm.models import load_model
from etarm.pte import delegate_payloads
from etarm.testing.cli import run_cli
from etarm.tosa.reference_model import run_tosa


@pytest.mark.parametrize("model", ["add", "sub", "mul"])
def test_compile_builtin_model_runs_on_reference_model(tmp_path, model):
    pte, report_path, intermediates = tmp_path / f"{model}.pte", tmp_path / "report.json", tmp_path / "int"
    proc = run_cli("compile", "-m", model, "-t", "TOSA-1.0+FP", "-o", str(pte), "-i", str(intermediates), "--report", str(report_path))
    assert proc.returncode == 0, proc.stderr
    assert "target      TOSA-1.0+FP" in proc.stdout
    assert "on CPU      none" in proc.stdout
    report = json.loads(report_path.read_text())
    assert report["target"] == "TOSA-1.0+FP"
    assert report["pte_bytes"] == pte.stat().st_size
    assert report["cpu_ops"] == []
    (partition,) = report["partitions"]
    assert partition["backend"] == "TOSABackend"
    assert partition["aten_ops"] == [f"aten.{model}.Tensor"]
    assert [i["shape"] for i in partition["inputs"]] == [[1, 8, 16, 16]] * 2
    assert set(report["timings_s"]) >= {"export", "lower", "to_executorch"}

    (payload,) = delegate_payloads(pte.read_bytes())
    assert payload.backend_id == "TOSABackend"
    assert payload.data == (intermediates / "partition_0.tosa").read_bytes()
    module, inputs = load_model(model)
    (got,) = run_tosa(payload.data, [t.numpy() for t in inputs])
    np.testing.assert_allclose(got, module(*inputs).numpy(), rtol=1e-6, atol=1e-6)


def test_compile_model_file_with_cpu_fallback(tmp_path):
    model_file = tmp_path / "net.py"
    model_file.write_text(
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x, y):\n"
        "        return torch.sort(x * y + x).values\n"
        "ModelUnderTest = Net()\n"
        "ModelInputs = (torch.randn(3, 5), torch.randn(3, 5))\n"
    )
    report_path = tmp_path / "r.json"
    proc = run_cli("compile", "-m", str(model_file), "-o", str(tmp_path), "--report", str(report_path))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "net_TOSA-1.0+FP.pte").is_file()
    report = json.loads(report_path.read_text())
    assert len(report["partitions"]) == 1
    (sort,) = report["cpu_ops"]
    assert sort["op"] == "aten.sort.default"
    assert sort["reason"] == "no TOSA lowering for aten.sort.default"
    assert "aten.sort.default" in proc.stdout


def test_no_delegate_keeps_everything_on_cpu(tmp_path):
    report_path = tmp_path / "r.json"
    proc = run_cli("compile", "-m", "add", "--no-delegate", "-o", str(tmp_path / "a.pte"), "--report", str(report_path))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(report_path.read_text())
    assert report["partitions"] == []
    assert [op["op"] for op in report["cpu_ops"]] == ["aten.add.Tensor"]
    assert delegate_payloads((tmp_path / "a.pte").read_bytes()) == []


def run_cli_in_process(capsys, *args) -> subprocess.CompletedProcess:
    """The error paths run in this process: the same main(), without paying imports per case."""
    from etarm.cli import main

    code = main(list(args))
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, captured.out, captured.err)


def _assert_one_line_error(proc, *fragments):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("etarm: error:")]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_unknown_target(tmp_path):
    proc = run_cli("compile", "-m", "add", "-t", "cortex-a99", "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "unknown target 'cortex-a99'", "TOSA-1.0+FP")
    assert not (tmp_path / "x.pte").exists()


def test_invalid_tosa_spec(tmp_path, capsys):
    proc = run_cli_in_process(capsys, "compile", "-m", "add", "-t", "TOSA-1.0+XYZ", "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "XYZ")


def test_unknown_model_name(tmp_path, capsys):
    proc = run_cli_in_process(capsys, "compile", "-m", "no_such_model", "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "unknown model 'no_such_model'", "add")


def test_missing_model_file(tmp_path, capsys):
    proc = run_cli_in_process(capsys, "compile", "-m", str(tmp_path / "missing.py"), "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "does not exist")


def test_unreadable_model_file(tmp_path, capsys):
    bad = tmp_path / "broken.py"
    bad.write_text("this is not python(\n")
    proc = run_cli_in_process(capsys, "compile", "-m", str(bad), "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "failed to load", "SyntaxError")


def test_model_file_without_contract(tmp_path, capsys):
    bad = tmp_path / "empty.py"
    bad.write_text("import torch\nModelUnderTest = torch.nn.ReLU()\n")
    proc = run_cli_in_process(capsys, "compile", "-m", str(bad), "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "ModelInputs")


def test_export_failure(tmp_path, capsys):
    bad = tmp_path / "dynamic.py"
    bad.write_text(
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.sum() > 0:\n"
        "            return x + 1\n"
        "        return x - 1\n"
        "ModelUnderTest = Net()\n"
        "ModelInputs = (torch.randn(4),)\n"
    )
    proc = run_cli_in_process(capsys, "compile", "-m", str(bad), "-o", str(tmp_path / "x.pte"))
    _assert_one_line_error(proc, "torch.export failed")


def test_debug_shows_traceback(tmp_path, capsys):
    proc = run_cli_in_process(capsys, "compile", "-m", "no_such_model", "--debug", "-o", str(tmp_path / "x.pte"))
    assert proc.returncode == 2
    assert "Traceback" in proc.stderr
