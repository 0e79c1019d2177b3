"""Ethos-U: etarm against the ExecuTorch Arm backend's aot_arm_compiler, model by model.

Both tools compile the same model file (an etarm built-in exposed as ModelUnderTest /
ModelInputs) for the same NPU, quantized, with the same Vela system configuration and
memory mode (etarm's defaults, passed to both), each in a fresh process:

    etarm compile -m MODEL.py -t TARGET -q -o OUT.pte --report R.json -i DIR
                  --system_config S --memory_mode M
    python -m executorch.backends.arm.scripts.aot_arm_compiler --model_name MODEL.py
        --target TARGET --quantize --delegate --intermediates DIR --output DIR
        --system_config S --memory_mode M

Per model and NPU it reports, for each tool: the compute ops left on CPU (quantize /
dequantize nodes at the boundary and getitem not counted), the number of NPU
partitions, and Vela's estimates summed over the partitions: total cycles, SRAM, flash
and DRAM bytes. etarm's come from its --report; the peer's from the Vela summaries it
prints (one per partition), cross-checked with the summary CSVs in its intermediates.
Both run the same installed Vela, so the estimates compare. Where one partition computes
the whole model, its .tosa also runs on the TOSA reference model against the float model
(float_error.py): the RMS error of each tool's integer arithmetic. Both tools calibrate on
the same data: --calibration N inputs (default 32) drawn like the example inputs (etarm's
``--calibration_data random:N`` set), written as .pt files both read; 0 for the example inputs.

    ./bazelw run //benchmarks:ethosu [-- --models mlp,unet --targets ethos-u55-128 --json out.json]
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

import torch

# benchmarks/compile.py (model files, launchers, environments) sits beside this file. This
# directory must not stay on the import path: the file's name would shadow Vela's `ethosu`.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import compile as compile_benchmark  # noqa: E402
import float_error  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

DEFAULT_MODELS = "mlp,cnn_bn,inverted_residual,ds_cnn,transformer_block,encoder_layer,unet"
DEFAULT_TARGETS = "ethos-u55-128,ethos-u85-256"
TOOLS = ("etarm", "peer")
_KIB = 1024
# Boundary nodes every quantized partition leaves on CPU, in either tool's naming.
_BOUNDARY = re.compile(r"(quantize_per_tensor|dequantize_per_tensor|^getitem$)")


@dataclasses.dataclass
class Result:
    ok: bool
    cpu_ops: list[str] = dataclasses.field(default_factory=list)  # compute ops left on CPU
    partitions: int = 0
    cycles: int = 0
    sram_bytes: int = 0
    flash_bytes: int = 0
    dram_bytes: int = 0
    macs: int = 0  # Vela's nn_macs: the network's multiply-accumulates
    vela_cpu_operators: int = 0
    wall_s: float = 0.0
    float_error: dict | None = None  # float_error.py: rms, max, max_steps
    detail: str = ""


def run(command: list[str], cwd: str, env: dict, timeout: float) -> tuple[int, str, float]:
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout
        )
        code, log = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as exc:
        # The output so far comes as bytes even with text=True.
        so_far = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        code, log = -1, so_far + f"\n(timed out after {timeout:.0f} s)"
    return code, log, round(time.perf_counter() - start, 2)


def _tail(log: str, lines: int = 12) -> str:
    return "\n".join(log.strip().splitlines()[-lines:])


# --- etarm -------------------------------------------------------------------------------------
def calibration_options(calibration: str | None) -> list[str]:
    return ["--calibration_data", calibration] if calibration else []


def write_calibration_set(directory: str, model: str, count: int) -> str | None:
    """``count`` inputs drawn like the model's example inputs (etarm's ``random:N`` set), one .pt
    file each, in a folder both tools calibrate from; None (the example inputs) for 0."""
    if count == 0:
        return None
    from etarm.models import load_model
    from etarm.quantization.pt2e_flow import random_batches

    _module, inputs = load_model(model)
    folder = os.path.join(directory, f"{model}_calibration")
    os.makedirs(folder, exist_ok=True)
    for index, batch in enumerate(random_batches(tuple(inputs), count)):
        torch.save(batch[0] if len(batch) == 1 else batch, os.path.join(folder, f"{index:04d}.pt"))
    return folder


def etarm_command(
    launcher: list[str], model_file: str, target: str, out_dir: str, system_config: str, memory_mode: str,
    calibration: str | None = None,
):  # fmt: skip
    report = os.path.join(out_dir, "report.json")
    command = [
        *launcher, "compile", "-m", model_file, "-t", target, "-q", "-o", os.path.join(out_dir, "etarm.pte"),
        "--report", report, "-i", os.path.join(out_dir, "intermediates"),
        "--system_config", system_config, "--memory_mode", memory_mode, *calibration_options(calibration),
    ]  # fmt: skip
    return command, report


def etarm_result(report: dict) -> Result:
    result = Result(ok=True)
    result.cpu_ops = sorted(e["op"] for e in report["cpu_ops"] if not _BOUNDARY.search(e["op"]))
    for partition in report["partitions"]:
        vela = partition.get("vela")
        if not vela:
            continue
        result.partitions += 1
        result.cycles += vela["cycles_total"]
        result.sram_bytes += vela["sram_bytes"]
        result.flash_bytes += vela["flash_bytes"]
        result.dram_bytes += vela["dram_bytes"]
        result.macs += vela.get("macs", 0)
        result.vela_cpu_operators += vela.get("cpu_operators", 0)
    return result


# --- the peer ----------------------------------------------------------------------------------
def peer_command(
    model_file: str, target: str, out_dir: str, system_config: str, memory_mode: str, calibration: str | None = None
):
    intermediates = os.path.join(out_dir, "intermediates")
    command = [
        sys.executable, "-m", compile_benchmark.PEER_MODULE, "--model_name", model_file, "--target", target,
        "--quantize", "--delegate", "--intermediates", intermediates, "--output", out_dir,
        "--system_config", system_config, "--memory_mode", memory_mode, *calibration_options(calibration),
    ]  # fmt: skip
    return command, intermediates


def _number(pattern: str, text: str, default: float = 0.0) -> float:
    match = re.search(pattern, text, re.MULTILINE)
    return float(match.group(1)) if match else default


def vela_summaries(log: str) -> list[dict]:
    """Vela's printed summary, one per compiled partition ("Network summary for ..." blocks)."""
    blocks = log.split("Network summary for ")[1:]
    summaries = []
    for block in blocks:
        block = block.split("Delegation summary")[0]
        summaries.append(
            {
                "cycles": int(_number(r"^Total cycles\s+(\d+)", block)),
                "sram_bytes": round(_number(r"^Total SRAM used\s+([\d.]+) KiB", block) * _KIB),
                "dram_bytes": round(_number(r"^Total DRAM used\s+([\d.]+) KiB", block) * _KIB),
                "flash_bytes": round(
                    (_number(r"^Total On-chip Flash used\s+([\d.]+) KiB", block)
                     + _number(r"^Total Off-chip Flash used\s+([\d.]+) KiB", block)) * _KIB
                ),  # fmt: skip
                "macs": int(_number(r"^Neural network macs\s+(\d+)", block)),
                "cpu_operators": int(_number(r"^CPU operators = (\d+)", block)),
            }
        )
    return summaries


def summary_csvs(directory: str) -> list[dict]:
    """The summary CSVs Vela wrote under ``directory`` (the peer names each partition's "out")."""
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, "**", "*_summary_*.csv"), recursive=True)):
        with open(path, newline="") as f:
            rows += list(csv.DictReader(f))
    return rows


def peer_cpu_ops(log: str) -> list[str]:
    """The "Non-delegated operators:" list of the peer's delegation summary, boundary nodes dropped."""
    ops: list[str] = []
    _before, found, after = log.partition("Non-delegated operators:")
    for line in after.splitlines() if found else []:
        match = re.match(r"\s*- (\S+): (\d+)\s*$", line)
        if match is None:
            if line.strip():
                break  # the end of the list
            continue
        if not _BOUNDARY.search(match.group(1)):
            ops += [match.group(1)] * int(match.group(2))
    return sorted(ops)


def peer_result(log: str, intermediates: str) -> Result:
    summaries = vela_summaries(log)
    rows = summary_csvs(intermediates)
    if not summaries and rows:  # nothing printed: read the CSVs
        summaries = [
            {
                "cycles": int(float(r["cycles_total"])),
                "sram_bytes": round(float(r["sram_memory_used"]) * _KIB),
                "dram_bytes": round(float(r["dram_memory_used"]) * _KIB),
                "flash_bytes": round((float(r["on_chip_flash_memory_used"]) + float(r["off_chip_flash_memory_used"])) * _KIB),
                "macs": int(float(r["nn_macs"])),
                "cpu_operators": 0,
            }
            for r in rows
        ]
    partitions = int(_number(r"Delegated partitions for silicon acceleration: (\d+)", log, len(summaries)))
    return Result(
        ok=True,
        cpu_ops=peer_cpu_ops(log),
        partitions=partitions,
        cycles=sum(s["cycles"] for s in summaries),
        sram_bytes=sum(s["sram_bytes"] for s in summaries),
        flash_bytes=sum(s["flash_bytes"] for s in summaries),
        dram_bytes=sum(s["dram_bytes"] for s in summaries),
        macs=sum(s["macs"] for s in summaries),
        vela_cpu_operators=sum(s["cpu_operators"] for s in summaries),
    )


# --- comparing ---------------------------------------------------------------------------------
def mac_utilisation(result: dict, target: str) -> float | None:
    """The share of the NPU's MAC slots doing the network's work: nn_macs / (cycles x the
    configuration's MACs per cycle, the number ending its name: ethos-u55-128 -> 128)."""
    if not result["ok"] or not result["cycles"]:
        return None
    return result["macs"] / (result["cycles"] * int(target.rsplit("-", 1)[1]))


def verdict(etarm: Result, peer: Result) -> dict:
    """Whether etarm leaves no more ops on CPU, makes no more partitions (a peer that
    delegates nothing has none to compare) and needs no more NPU cycles; more cycles count
    as a loss only when the peer runs as much on the NPU (None when it leaves more ops on
    CPU, whose time Vela does not estimate)."""
    if not (etarm.ok and peer.ok):
        return {"cpu_ops": None, "partitions": None, "cycles": None, "cycle_ratio": None}
    fewer_on_npu = len(peer.cpu_ops) > len(etarm.cpu_ops)
    return {
        "cpu_ops": len(etarm.cpu_ops) <= len(peer.cpu_ops),
        "partitions": etarm.partitions <= peer.partitions or peer.partitions == 0,
        "cycles": True if etarm.cycles <= peer.cycles else (None if fewer_on_npu else False),
        "cycle_ratio": round(etarm.cycles / peer.cycles, 3) if peer.cycles else None,
    }


def format_table(rows: list[dict]) -> str:
    def pair(row, key, scale=1, digits=0):
        values = []
        for tool in TOOLS:
            r = row[tool]
            values.append("failed" if not r["ok"] else f"{r[key] / scale:.{digits}f}" if scale != 1 else str(r[key]))
        return " / ".join(values)

    def errors(row):
        measured = [row[tool]["float_error"] for tool in TOOLS]
        return " / ".join("-" if e is None else f"{e['rms']:.4f}" for e in measured)

    def utilisation(row):
        shares = [mac_utilisation(row[tool], row["target"]) for tool in TOOLS]
        return " / ".join("-" if share is None else f"{100 * share:.0f}%" for share in shares)

    lines = [
        "| model | NPU | CPU ops | partitions | cycles | cycles etarm/peer | MAC utilisation | SRAM KiB | flash KiB "
        "| DRAM KiB | RMS error vs float |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        cpu = " / ".join("failed" if not row[t]["ok"] else str(len(row[t]["cpu_ops"])) for t in TOOLS)
        ratio = row["verdict"]["cycle_ratio"]
        lines.append(
            f"| {row['model']} | {row['target']} | {cpu} | {pair(row, 'partitions')} | {pair(row, 'cycles')} "
            f"| {'-' if ratio is None else f'{ratio:.2f}'} | {utilisation(row)} | {pair(row, 'sram_bytes', _KIB, 1)} "
            f"| {pair(row, 'flash_bytes', _KIB, 1)} | {pair(row, 'dram_bytes', _KIB, 1)} | {errors(row)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    compile_benchmark.add_shared_options(
        parser, DEFAULT_MODELS, DEFAULT_TARGETS, "comma-separated Ethos-U targets", "ethosu_benchmark.json", timeout=900
    )
    parser.add_argument(
        "--calibration",
        type=int,
        default=32,
        help="calibrate both tools with this many inputs drawn like the example inputs (0: the example inputs)",
    )
    args = parser.parse_args(argv)
    models, targets = args.models, args.targets
    launcher = compile_benchmark._etarm_launcher(args.etarm)
    etarm_env, peer_env = compile_benchmark._environments(launcher)
    json_path = os.path.abspath(args.json or compile_benchmark.default_json_path("ethosu_benchmark.json"))

    from etarm.ethosu.compile_spec import EthosUCompileSpec  # the defaults both tools get

    rows = []
    with tempfile.TemporaryDirectory(prefix="etarm_ethosu_bench_") as scratch:
        for model in models:
            model_file = compile_benchmark.write_model_file(scratch, model)
            reference = float_error.float_reference(model)
            calibration = write_calibration_set(scratch, model, args.calibration)
            for target in targets:
                spec = EthosUCompileSpec(target)
                settings = (spec.system_config, spec.memory_mode)
                results = {}
                out = tempfile.mkdtemp(prefix=f"{model}_{target}_etarm_", dir=scratch)
                command, report_path = etarm_command(launcher, model_file, target, out, *settings, calibration)
                code, log, wall = run(command, out, etarm_env, args.timeout)
                if code == 0 and os.path.isfile(report_path):
                    with open(report_path) as f:
                        report = json.load(f)
                    results["etarm"] = etarm_result(report)
                    results["etarm"].float_error = float_error.etarm_error(reference, report, os.path.join(out, "intermediates"))
                else:
                    results["etarm"] = Result(ok=False, detail=f"exit code {code}:\n{_tail(log)}")
                results["etarm"].wall_s = wall
                out = tempfile.mkdtemp(prefix=f"{model}_{target}_peer_", dir=scratch)
                command, intermediates = peer_command(model_file, target, out, *settings, calibration)
                code, log, wall = run(command, out, peer_env, args.timeout)
                if code == 0:
                    results["peer"] = peer_result(log, intermediates)
                    results["peer"].float_error = float_error.peer_error(reference, results["peer"].partitions, out, intermediates)
                else:
                    results["peer"] = Result(ok=False, detail=f"exit code {code}:\n{_tail(log)}")
                results["peer"].wall_s = wall
                row = {
                    "model": model,
                    "target": target,
                    "system_config": spec.system_config,
                    "memory_mode": spec.memory_mode,
                    **{tool: dataclasses.asdict(results[tool]) for tool in TOOLS},
                    "verdict": verdict(results["etarm"], results["peer"]),
                }
                rows.append(row)
                for tool in TOOLS:
                    r = results[tool]
                    status = (
                        f"{len(r.cpu_ops)} CPU ops, {r.partitions} partition(s), {r.cycles} cycles ({r.wall_s:.0f} s)"
                        if r.ok
                        else "FAILED"
                    )
                    print(f"{model:18} {target:14} {tool:5} {status}", flush=True)
                    if not r.ok:
                        print(r.detail, flush=True)

    from importlib.metadata import version

    result = {
        "date": datetime.date.today().isoformat(),
        "vela": version("ethos-u-vela"),
        "executorch": version("executorch"),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "calibration": f"{args.calibration} random inputs" if args.calibration else "the example inputs",
        "commands": {
            "etarm": " ".join(etarm_command(launcher, "MODEL.py", "TARGET", "OUT", "SYSTEM", "MODE")[0]),
            "peer": " ".join(peer_command("MODEL.py", "TARGET", "OUT", "SYSTEM", "MODE")[0]),
        },
        "results": rows,
    }
    compile_benchmark.write_json(json_path, result)
    print()
    print(
        f"Ethos-U, {result['date']}, Vela {result['vela']}: etarm / peer (executorch {result['executorch']} "
        f"aot_arm_compiler), both calibrated on {result['calibration']}"
    )
    print(format_table(rows))
    for row in rows:
        losses = [key for key in ("cpu_ops", "partitions", "cycles") if row["verdict"][key] is False]
        if losses:
            print(f"etarm behind the peer on {row['model']} / {row['target']}: {', '.join(losses)}")
    print(f"wrote {json_path}")
    return compile_benchmark.exit_status(sum(not row[tool]["ok"] for row in rows for tool in TOOLS))


if __name__ == "__main__":
    sys.exit(main())
