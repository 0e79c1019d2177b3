"""Where the benchmarks write their JSON results, and how (shared by every benchmark; no heavy
imports, so footprint.py stays free of torch)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys


def default_json_path(file_name: str) -> str:
    """`file_name` in the test's undeclared outputs, else the workspace (bazel run), else here."""
    directory = (
        os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    )
    return os.path.join(directory, file_name)


def write_json(path: str, result: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=2)


def finish(path: str, settings: dict, rows: list[dict], failure: str) -> int:
    """Writes the dated results with `settings` to `path` and returns the exit code: 1 when a
    row is not ok (`failure` says what such a row did, e.g. "did not run")."""
    write_json(
        path,
        {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(),
            **settings,
            "results": rows,
        },
    )
    print(f"wrote {path}")
    failed = sum(not row["ok"] for row in rows)
    if failed:
        print(f"{failed} of {len(rows)} {failure}", file=sys.stderr)
    return 1 if failed else 0
