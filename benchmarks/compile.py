"""Compile time: etarm against the ExecuTorch Arm backend's aot_arm_compiler, side by side.

Every compile is a fresh process, the way users run both tools:
    etarm compile -m MODEL.py -t TARGET [-q] -o OUT.pte
    python -m executorch.backends.arm.scripts.aot_arm_compiler --model_name MODEL.py
        --target TARGET [--quantize] --delegate --output DIR
Both read the same model file (a built-in etarm model exposed as ModelUnderTest/ModelInputs).
The two tools alternate, and which goes first flips from one pair to the next, so load from
other work on the machine falls on both alike. Wall time is what a user waits for; CPU time
(user + system, of the process and its children) is printed too because it is less sensitive
to that load, and so is each compile's peak resident memory (the largest of the process and
its children).

    ./bazelw run //benchmarks:compile [-- --models add,mlp --repetitions 5 --json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from benchmarks.benchmark_results import default_json_path, write_json  # ethosu.py uses them through this module too

DEFAULT_MODELS = "add,mlp,cnn_bn"
DEFAULT_TARGETS = "TOSA-1.0+FP,TOSA-1.0+INT"
PEER_MODULE = "executorch.backends.arm.scripts.aot_arm_compiler"
TOOLS = ("etarm", "peer")

MODEL_FILE = '''"""etarm's built-in model {name!r} as a model file (ModelUnderTest, ModelInputs)."""
from etarm.models import load_model

ModelUnderTest, ModelInputs = load_model({name!r})
'''


@dataclasses.dataclass
class Run:
    wall_s: float
    cpu_s: float
    ok: bool
    detail: str = ""
    peak_mb: float = 0.0


def _is_quantized(target: str) -> bool:
    return "+INT" in target.upper()


def etarm_command(etarm: list[str], model_file: str, target: str, out_dir: str) -> tuple[list[str], str]:
    pte = os.path.join(out_dir, "etarm.pte")
    return [*etarm, "compile", "-m", model_file, "-t", target, *(["-q"] if _is_quantized(target) else []), "-o", pte], pte


def peer_command(model_file: str, target: str, out_dir: str) -> tuple[list[str], str]:
    command = [sys.executable, "-m", PEER_MODULE, "--model_name", model_file, "--target", target]
    command += [*(["--quantize"] if _is_quantized(target) else []), "--delegate", "--output", out_dir]
    return command, out_dir


def _written(output: str) -> bool:
    """The .pte (or, for a directory, some .pte in it) exists and is not empty."""
    if os.path.isdir(output):
        return any(f.endswith(".pte") and os.path.getsize(os.path.join(output, f)) for f in os.listdir(output))
    return os.path.isfile(output) and os.path.getsize(output) > 0


def timed_run(command: list[str], output: str, cwd: str, env: dict, timeout: float) -> Run:
    start = time.perf_counter()
    # Own process group: a timeout stops the tool's children too (Bazel's launcher forks Python).
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    timer = threading.Timer(timeout, os.killpg, (proc.pid, signal.SIGKILL))
    timer.start()
    log = proc.stdout.read()
    # wait4 rather than Popen.wait: the child's own resource use, peak memory included.
    _pid, status, usage = os.wait4(proc.pid, 0)
    timed_out = not timer.is_alive()
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    wall = time.perf_counter() - start
    if timed_out:
        log += f"\n(timed out after {timeout:.0f} s)"
    cpu = usage.ru_utime + usage.ru_stime
    ok = proc.returncode == 0 and not timed_out and _written(output)
    detail = "" if ok else f"exit code {proc.returncode}; last output:\n" + "\n".join(log.splitlines()[-15:])
    return Run(round(wall, 3), round(cpu, 3), ok, detail, round(usage.ru_maxrss / 1024, 1))


# --- shared with benchmarks/ethosu.py -----------------------------------------------------------
def _comma_separated(value: str) -> list[str]:
    return [item for item in value.split(",") if item]


def add_shared_options(
    parser: argparse.ArgumentParser, models: str, targets: str, targets_help: str, json_file: str, timeout: float
) -> None:
    """--models and --targets (parsed into lists), --etarm, --json and --timeout."""
    parser.add_argument("--models", type=_comma_separated, default=models, help="comma-separated built-in etarm models")
    parser.add_argument("--targets", type=_comma_separated, default=targets, help=targets_help)
    parser.add_argument("--etarm", help="etarm launcher (default: $ETARM_CLI, else python -m etarm.cli)")
    parser.add_argument("--json", default=None, help=f"results file (default: {json_file} in the workspace)")
    parser.add_argument("--timeout", type=float, default=timeout, help="seconds before a compile counts as failed")


def write_model_file(directory: str, model: str) -> str:
    """The built-in etarm model `model` as a model file both tools read; returns its path."""
    path = os.path.join(directory, f"{model}.py")
    with open(path, "w") as f:
        f.write(MODEL_FILE.format(name=model))
    return path


def exit_status(failed: int) -> int:
    """1 (after saying how many) if any compile failed, else 0."""
    if failed:
        print(f"{failed} compile(s) failed", file=sys.stderr)
    return 1 if failed else 0


def _etarm_launcher(value: str | None) -> list[str]:
    value = value or os.environ.get("ETARM_CLI")
    if value:
        return [os.path.abspath(value)]
    return [sys.executable, "-m", "etarm.cli"]  # outside Bazel: etarm importable from this Python


def _environments(etarm: list[str]) -> tuple[dict, dict]:
    """The peer gets this interpreter's sys.path, which holds the executorch, torch and
    tosa-tools etarm runs with; etarm's Bazel launcher sets its own path."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with_path = dict(base, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return (with_path if etarm[0] == sys.executable else base), with_path


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def summarize(runs: dict, models: list[str], targets: list[str]) -> list[dict]:
    rows = []
    for model in models:
        for target in targets:
            row = {"model": model, "target": target}
            for tool in TOOLS:
                samples = runs[(model, target, tool)]
                good = [r for r in samples if r.ok]
                row[tool] = {
                    "wall_s": [r.wall_s for r in samples],
                    "cpu_s": [r.cpu_s for r in samples],
                    "failures": [r.detail for r in samples if not r.ok],
                    "median_wall_s": _median([r.wall_s for r in good]),
                    "median_cpu_s": _median([r.cpu_s for r in good]),
                    "peak_mb": [r.peak_mb for r in samples],
                    "median_peak_mb": _median([r.peak_mb for r in good]),
                }
            ours, peer = row["etarm"]["median_wall_s"], row["peer"]["median_wall_s"]
            row["ratio"] = round(ours / peer, 3) if ours and peer else None
            ours_cpu, peer_cpu = row["etarm"]["median_cpu_s"], row["peer"]["median_cpu_s"]
            row["cpu_ratio"] = round(ours_cpu / peer_cpu, 3) if ours_cpu and peer_cpu else None
            rows.append(row)
    return rows


def format_table(rows: list[dict]) -> str:
    def num(value, digits=1):
        return f"{value:.{digits}f}" if value is not None else "failed"

    lines = [
        "| model | target | etarm s | peer s | ratio | etarm CPU s | peer CPU s | CPU ratio | etarm MB | peer MB |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['target']} | {num(r['etarm']['median_wall_s'])} | {num(r['peer']['median_wall_s'])} "
            f"| {num(r['ratio'], 2)} | {num(r['etarm']['median_cpu_s'])} | {num(r['peer']['median_cpu_s'])} "
            f"| {num(r['cpu_ratio'], 2)} | {num(r['etarm']['median_peak_mb'], 0)} | {num(r['peer']['median_peak_mb'], 0)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=3, help="compiles per tool, model and target")
    parser.add_argument("--warmup", type=int, default=1, help="untimed compiles per tool first (disk cache)")
    add_shared_options(
        parser, DEFAULT_MODELS, DEFAULT_TARGETS, "comma-separated TOSA targets (+INT ones quantize)",
        "compile_benchmark.json", timeout=600,
    )  # fmt: skip
    args = parser.parse_args(argv)
    models, targets = args.models, args.targets
    etarm = _etarm_launcher(args.etarm)
    etarm_env, peer_env = _environments(etarm)
    json_path = os.path.abspath(args.json or default_json_path("compile_benchmark.json"))

    runs = {(m, t, tool): [] for m in models for t in targets for tool in TOOLS}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="etarm_compile_bench_") as scratch:
        model_files = {model: write_model_file(scratch, model) for model in models}

        def compile_once(tool: str, model: str, target: str, label: str) -> Run:
            out_dir = tempfile.mkdtemp(prefix=f"{label}_{tool}_", dir=scratch)
            if tool == "etarm":
                command, output = etarm_command(etarm, model_files[model], target, out_dir)
                return timed_run(command, output, out_dir, etarm_env, args.timeout)
            command, output = peer_command(model_files[model], target, out_dir)
            return timed_run(command, output, out_dir, peer_env, args.timeout)

        for i in range(args.warmup):
            for tool in TOOLS:
                compile_once(tool, models[0], targets[0], f"warmup{i}")
        pair = 0
        for rep in range(args.repetitions):
            for model in models:
                for target in targets:
                    order = TOOLS if pair % 2 == 0 else TOOLS[::-1]
                    pair += 1
                    for tool in order:
                        run = compile_once(tool, model, target, f"{model}_{rep}")
                        runs[(model, target, tool)].append(run)
                        status = (
                            f"{run.wall_s:6.2f} s wall {run.cpu_s:6.2f} s CPU {run.peak_mb:6.0f} MB" if run.ok else "FAILED"
                        )
                        print(f"[{rep + 1}/{args.repetitions}] {tool:5} {model:12} {target:20} {status}", flush=True)
                        if not run.ok:
                            print(run.detail, flush=True)

    rows = summarize(runs, models, targets)
    result = {
        "date": datetime.date.today().isoformat(),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "repetitions": args.repetitions,
        "commands": {
            "etarm": " ".join(etarm_command(etarm, "MODEL.py", "TARGET", "OUT")[0]),
            "peer": " ".join(peer_command("MODEL.py", "TARGET", "OUT")[0]),
        },
        "results": rows,
    }
    write_json(json_path, result)
    print()
    print(f"median of {args.repetitions} fresh-process compiles; ratio = etarm / peer (goal: <= 0.3)")
    print(format_table(rows))
    print(f"wrote {json_path}")
    return exit_status(sum(len(r[tool]["failures"]) for r in rows for tool in TOOLS))


if __name__ == "__main__":
    sys.exit(main())
