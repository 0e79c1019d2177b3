"""Runs the ML SDK model converter (ai-ml-sdk-model-converter) on one TOSA flatbuffer.

The converter is the binary inside the installed Python package
(``model_converter/binaries/bin/model-converter``), found through the package's import
path, never on PATH. It is a subprocess: 0.04-0.14 s per partition.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import subprocess
import time

from etarm.errors import EtarmError

PACKAGE = "ai-ml-sdk-model-converter"
_MODULE = "model_converter"
_BINARY = os.path.join("binaries", "bin", "model-converter")
# Far above any partition seen (0.14 s); only a hung converter reaches it.
_TIMEOUT_S = 600
# Printed for every etarm graph: etarm writes TOSA 1.0, the converter reads up to 1.1.
_NOISE = ("WARNING: Different TOSA spec",)


class ConverterError(EtarmError):
    """model-converter refused a partition: its reason, and the command that reproduces it."""

    def __init__(self, reason: str, command: list[str]):
        super().__init__(reason)
        self.reason = reason
        self.command = command


def converter_path() -> str:
    # pip installs some packages as namespace packages (no __file__): use the search path.
    spec = importlib.util.find_spec(_MODULE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = os.path.join(location, _BINARY)
        if os.access(path, os.X_OK):
            return path
    raise EtarmError(f"model-converter is not installed (pip install {PACKAGE}=={converter_version() or '0.11.0'})")


def converter_version() -> str | None:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def _reason(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip() and not line.startswith(_NOISE)]
    return "; ".join(lines[-3:]) or "no message"


def convert(tosa_path: str, vgf_path: str, flags: tuple[str, ...]) -> float:
    """Writes ``vgf_path`` from ``tosa_path`` and returns the seconds it took; raises ConverterError
    with the converter's reason."""
    command = [converter_path(), *flags, "--input", tosa_path, "--output", vgf_path]
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ConverterError(f"model-converter did not finish in {_TIMEOUT_S} s", command) from None
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise ConverterError(f"exit status {proc.returncode}: {_reason(proc.stdout + proc.stderr)}", command)
    if not os.path.isfile(vgf_path):
        raise ConverterError(f"no VGF file written: {_reason(proc.stdout + proc.stderr)}", command)
    return seconds
