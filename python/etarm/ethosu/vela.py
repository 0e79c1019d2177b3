"""Runs Vela 5.2.0 on one TOSA flatbuffer and reads back what it wrote.

Vela runs in-process through its console entry point (``ethosu.vela.vela.main``, the
function the ``vela`` command calls): after a one-off import (~0.5 s) a small network
compiles in ~25 ms, where a subprocess pays the import on every partition. Vela's
Python-side output is captured; its raw output (``<name>_vela.npz``: command stream,
weights, scratch sizes and I/O placement) and its summary
(``<name>_summary_<system config>.csv``: cycle, memory and MAC estimates) are read
from the output directory, which ``-i DIR`` keeps.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import os
import re
import time

import numpy as np

from etarm.errors import EtarmError
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.debug_db import npu_operations

VELA_VERSION = "5.2.0"
_KIB = 1024


class VelaError(EtarmError):
    """Vela refused the partition; the message says what and why."""


@dataclasses.dataclass(frozen=True)
class VelaTensor:
    shape: tuple[int, ...]  # Vela's 6-D shape (leading 1s)
    elem_size: int
    offset: int
    region: int


@dataclasses.dataclass
class VelaOutput:
    cmd_data: bytes
    weight_data: bytes
    scratch_size: int
    fast_scratch_size: int
    inputs: list[VelaTensor]
    outputs: list[VelaTensor]
    estimates: dict
    log: str
    # Per NPU operation: its TOSA operator and estimates (debug_db.npu_operations).
    npu_operations: list = dataclasses.field(default_factory=list)


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ethos-u-vela")
    except PackageNotFoundError:
        raise EtarmError(f"ethos-u-vela is not installed (pip install ethos-u-vela=={VELA_VERSION})") from None


def _vela_main():
    version = installed_version()
    if version != VELA_VERSION:
        # Cycle estimates and command streams differ between Vela versions: say which is used.
        raise EtarmError(f"etarm is pinned to ethos-u-vela {VELA_VERSION}, but {version} is installed")
    from ethosu.vela import vela

    return vela.main


def run_vela(tosa_path: str, spec: EthosUCompileSpec, output_dir: str) -> VelaOutput:
    """Compiles ``tosa_path`` into ``output_dir``; raises VelaError with Vela's reason."""
    main = _vela_main()
    # The debug database maps NPU operations back to TOSA operators; it costs nothing measurable.
    args = [*spec.vela_args(), "--output-dir", output_dir, "--output-format", "raw", "--enable-debug-db", tosa_path]
    log = io.StringIO()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            status = main(args)
    except SystemExit:  # argparse rejected an option (extra_flags)
        raise VelaError(f"Vela rejected its options: {_last_lines(log.getvalue(), 1)}") from None
    except RuntimeError as exc:  # Vela's compile errors ("Compilation failed: ...")
        raise VelaError(_clean(str(exc)) or "Vela failed without a message") from exc
    except Exception as exc:  # e.g. a KeyError for an option value Vela does not know
        flags = f" (extra flags: {' '.join(spec.extra_flags)})" if spec.extra_flags else ""
        raise VelaError(f"Vela failed with {type(exc).__name__}: {_clean(str(exc))}{flags}") from exc
    seconds = time.perf_counter() - start
    if status not in (0, None):
        raise VelaError(f"Vela exited with status {status}: {_last_lines(log.getvalue())}")
    name = os.path.splitext(os.path.basename(tosa_path))[0]
    raw = _read_raw(os.path.join(output_dir, f"{name}_vela.npz"))
    summary = _read_summary(os.path.join(output_dir, f"{name}_summary_{spec.system_config}.csv"))
    estimates = _estimates(summary, log.getvalue(), spec, raw, seconds)
    with open(tosa_path, "rb") as f:
        operations = npu_operations(os.path.join(output_dir, f"{name}_debug.xml"), f.read())
    return dataclasses.replace(raw, estimates=estimates, log=log.getvalue(), npu_operations=operations)


def _clean(message: str) -> str:
    """Vela's multi-line messages ("Validation error:\\nConv2D:\\n - ...") on one line."""
    parts = [p.strip(" -") for p in message.replace("'", "").splitlines() if p.strip(" -")]
    return "; ".join(parts)


def _last_lines(text: str, count: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:]) or "(no output)"


def _read_raw(path: str) -> VelaOutput:
    if not os.path.isfile(path):
        raise VelaError(f"Vela finished without writing {os.path.basename(path)}")
    # The *_quantization entries are pickled objects: read only the plain arrays.
    with np.load(path, allow_pickle=False) as data:

        def tensors(prefix: str) -> list[VelaTensor]:
            shapes = data[f"{prefix}_shape"]
            return [
                VelaTensor(
                    tuple(int(d) for d in shapes[i]),
                    int(data[f"{prefix}_elem_size"][i]),
                    int(data[f"{prefix}_offset"][i]),
                    int(data[f"{prefix}_region"][i]),
                )
                for i in range(len(shapes))
            ]

        return VelaOutput(
            # tobytes, not item(): numpy drops the trailing NUL bytes of an item.
            cmd_data=data["cmd_data"].tobytes(),
            weight_data=data["weight_data"].tobytes(),
            scratch_size=int(data["scratch_size"]),
            fast_scratch_size=int(data["scratch_fast_size"]),
            inputs=tensors("input"),
            outputs=tensors("output"),
            estimates={},
            log="",
        )


def _read_summary(path: str) -> dict[str, str]:
    if not os.path.isfile(path):
        raise VelaError(f"Vela finished without writing {os.path.basename(path)}")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != 1:
        raise VelaError(f"Vela's summary {os.path.basename(path)} has {len(rows)} rows (expected one)")
    return rows[0]


def _number(row: dict, key: str) -> float:
    try:
        return float(row[key])
    except (KeyError, ValueError):
        raise VelaError(f"Vela's summary has no numeric '{key}' column") from None


def _operator_counts(log: str) -> dict:
    counts = {}
    for kind in ("CPU", "NPU"):
        match = re.search(rf"^{kind} operators = (\d+)", log, re.MULTILINE)
        if match:
            counts[f"{kind.lower()}_operators"] = int(match.group(1))
    return counts


def _estimates(row: dict, log: str, spec: EthosUCompileSpec, raw: VelaOutput, seconds: float) -> dict:
    """The report's ``vela`` entry: Vela's estimates, with memory in bytes."""
    kib = lambda key: round(_number(row, key) * _KIB)  # noqa: E731  (the summary counts KiB)
    return {
        "vela_version": VELA_VERSION,
        "accelerator": spec.target,
        "system_config": spec.system_config,
        "memory_mode": spec.memory_mode,
        "direct_drive": spec.direct_drive,
        "core_clock_hz": _number(row, "core_clock"),
        "cycles_total": int(_number(row, "cycles_total")),
        "cycles_npu": int(_number(row, "cycles_npu")),
        "inference_time_s": _number(row, "inference_time"),
        "inferences_per_second": _number(row, "inferences_per_second"),
        "macs": int(_number(row, "nn_macs")),
        "sram_bytes": kib("sram_memory_used"),
        "dram_bytes": kib("dram_memory_used"),
        "flash_bytes": kib("on_chip_flash_memory_used") + kib("off_chip_flash_memory_used"),
        "weights_area": row.get("weights_storage_area", ""),
        "feature_map_area": row.get("feature_map_storage_area", ""),
        "original_weights_bytes": int(_number(row, "total_original_weights")),
        "encoded_weights_bytes": int(_number(row, "total_npu_encoded_weights")),
        "command_stream_bytes": len(raw.cmd_data),
        "weight_data_bytes": len(raw.weight_data),
        "scratch_bytes": raw.scratch_size,
        "fast_scratch_bytes": raw.fast_scratch_size,
        **_operator_counts(log),
        "vela_seconds": round(seconds, 4),
    }
