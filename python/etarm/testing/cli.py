"""Runs ``etarm`` as its own process, as a user does."""

from __future__ import annotations

import os
import subprocess
import sys


def run_cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """The built py_binary under Bazel (``ETARM_CLI``), else ``python -m etarm.cli``."""
    cli = os.environ.get("ETARM_CLI")
    command = [cli, *args] if cli else [sys.executable, "-m", "etarm.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
