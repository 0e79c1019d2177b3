"""Where the benchmarks write their JSON results, and how (shared by compile.py, ethosu.py
and footprint.py; no heavy imports, so footprint.py stays free of torch)."""

from __future__ import annotations

import json
import os


def default_json_path(file_name: str) -> str:
    """`file_name` in the test's undeclared outputs, else the workspace (bazel run), else here."""
    directory = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    return os.path.join(directory, file_name)


def write_json(path: str, result: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=2)
