"""Progress on a terminal: each compile step with its time, a bar over calibration batches,
Vela per partition; nothing when the output is not a terminal."""

import io
import os
import pty
import subprocess
import sys

import torch

from etarm import progress
from etarm.compiler import compile_model
from etarm.models import load_model


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def final_lines(text):
    """What stays on screen: each \\r-separated rewrite keeps only its last part."""
    return [line.split("\r\x1b[K")[-1] for line in text.split("\n") if line.split("\r\x1b[K")[-1]]


def test_steps_and_calibration_on_a_terminal():
    model, inputs = load_model("mlp")
    terminal = FakeTerminal()
    batches = [tuple(torch.randn_like(t) for t in inputs) for _ in range(3)]
    with progress.reporting_to(progress.for_stream(terminal)):
        compile_model(model, inputs, "ethos-u55-128", quantize=True, calibration_data=batches)
    shown = terminal.getvalue()
    for done in (1, 2, 3):
        assert f"calibrating [" in shown and f"] {done}/3" in shown
    lines = final_lines(shown)
    steps = [line.split()[0] for line in lines if not line.startswith(" ")]
    # Ethos-U programs also rewrite their CPU part (cortex_m kernels for what the NPU rejects).
    assert steps == ["export", "quantize", "export", "lower", "cpu", "to"], lines
    (vela,) = [line for line in lines if "Vela for ethos-u55-128" in line]
    assert vela.startswith("  ") and vela.rstrip().endswith(" s")


def test_nothing_is_reported_off_a_terminal():
    model, inputs = load_model("add")
    piped = io.StringIO()
    with progress.reporting_to(progress.for_stream(piped)):
        compile_model(model, inputs, "TOSA-1.0+FP")
    assert piped.getvalue() == ""


def test_the_cli_shows_progress_on_a_terminal_only(tmp_path):
    command = [sys.executable, "-m", "etarm.cli", "compile", "-m", "add", "-o", str(tmp_path / "add.pte")]
    if os.environ.get("ETARM_CLI"):
        command = [os.environ["ETARM_CLI"], *command[3:]]
    piped = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr

    controller, terminal = pty.openpty()
    on_terminal = subprocess.run(command, stdout=subprocess.PIPE, stderr=terminal, timeout=600)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert on_terminal.returncode == 0
    assert b"export" in shown and b"to executorch" in shown
