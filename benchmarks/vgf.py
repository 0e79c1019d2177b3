"""VGF: etarm against the ExecuTorch Arm backend's aot_arm_compiler -t vgf, model by model.

Both tools compile the same model file (an etarm built-in exposed as ModelUnderTest /
ModelInputs), float and quantized, each in a fresh process:

    etarm compile -m MODEL.py -t vgf [-q] -o OUT.pte --report R.json
    python -m executorch.backends.arm.scripts.aot_arm_compiler --model_name MODEL.py
        --target vgf [--quantize] --delegate --output DIR

The peer finds the model converter on PATH: it gets the same converter (0.11.0, from its
package) that etarm runs. Per model and profile, for each tool: compute ops left on CPU
(boundary quantize/dequantize and getitem not counted), VGF partitions, compile wall time,
the .vgf bytes, then both .pte files run here on etarm's runtime through the VGF delegate on
lavapipe (etarm.runtime): the program's load time (the delegate builds its Vulkan pipelines
there) and the fastest of three executions, both lavapipe's, so emulation and not a device's speed; and the
largest error against the float model and against the model compiled for the TOSA profile
and run on the TOSA reference model (etarm's -t vgf must give 0 on INT).

    ./bazelw run //benchmarks:vgf [-- --models mlp,ds_cnn --targets FP,INT --json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys
import tempfile
import time

# This file's folder must not be on the import path: benchmarks/ethosu.py would shadow Vela's
# `ethosu` package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import model_converter  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from benchmarks import compile as compile_benchmark  # noqa: E402
from benchmarks.ethosu import _tail, peer_cpu_ops, run  # noqa: E402
from etarm.compiler import compile_model  # noqa: E402
from etarm.models import load_model  # noqa: E402
from etarm.pte import delegate_payloads  # noqa: E402
from etarm.runtime import Program  # noqa: E402
from etarm.vgf.compile_spec import PROFILE_SPECS  # noqa: E402

DEFAULT_MODELS = "mlp,cnn_bn,inverted_residual,ds_cnn,transformer_block,encoder_layer,unet"
DEFAULT_PROFILES = "FP,INT"
TOOLS = ("etarm", "peer")
EXECUTIONS = 3  # the fastest counts: the first also fills lavapipe's caches
_BOUNDARY = ("quantize_per_tensor", "dequantize_per_tensor")


@dataclasses.dataclass
class Result:
    ok: bool
    cpu_ops: list[str] = dataclasses.field(default_factory=list)
    partitions: int = 0
    compile_s: float = 0.0
    vgf_bytes: int = 0
    load_s: float | None = None  # lavapipe: Vulkan pipelines built at load
    execute_s: float | None = None
    error_vs_float: float | None = None
    error_vs_tosa: float | None = None
    detail: str = ""


def etarm_command(launcher: list[str], model_file: str, quantize: bool, out_dir: str) -> tuple[list[str], str]:
    pte = os.path.join(out_dir, "etarm.pte")
    report = os.path.join(out_dir, "report.json")
    command = [*launcher, "compile", "-m", model_file, "-t", "vgf", *(["-q"] if quantize else []), "-o", pte]
    return [*command, "--report", report], pte


def peer_command(model_file: str, quantize: bool, out_dir: str) -> list[str]:
    command = [sys.executable, "-m", compile_benchmark.PEER_MODULE, "--model_name", model_file, "--target", "vgf"]
    return command + [*(["--quantize"] if quantize else []), "--delegate", "--output", out_dir]


def converter_folder() -> str:
    return os.path.join(list(model_converter.__path__)[0], "binaries", "bin")


def _max_error(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    return max(float(np.max(np.abs(a.astype(np.float64) - np.asarray(b, np.float64)))) for a, b in zip(got, want))


def run_on_lavapipe(result: Result, pte: bytes, inputs: tuple, expected_float: list, expected_tosa: list) -> None:
    start = time.perf_counter()
    program = Program(pte)
    result.load_s = round(time.perf_counter() - start, 3)
    runs = [program.run(inputs) for _ in range(EXECUTIONS)]
    run = runs[-1]
    result.execute_s = round(min(r.seconds for r in runs), 4)
    result.error_vs_float = _max_error(run.outputs, expected_float)
    result.error_vs_tosa = _max_error(run.outputs, expected_tosa)


def compile_both(launcher, envs, model_file: str, quantize: bool, scratch: str, timeout: float) -> dict:
    """Each tool's Result (compile figures) and the path of its .pte (None if it failed)."""
    etarm_env, peer_env = envs
    found = {}
    out = tempfile.mkdtemp(prefix="etarm_", dir=scratch)
    command, pte_path = etarm_command(launcher, model_file, quantize, out)
    code, log, wall = run(command, out, etarm_env, timeout)
    result = Result(ok=code == 0 and os.path.isfile(pte_path), compile_s=round(wall, 2))
    if result.ok:
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        result.cpu_ops = sorted(e["op"] for e in report["cpu_ops"] if not any(b in e["op"] for b in _BOUNDARY))
    else:
        result.detail = f"exit code {code}:\n{_tail(log)}"
    found["etarm"] = (result, pte_path if result.ok else None)
    out = tempfile.mkdtemp(prefix="peer_", dir=scratch)
    env = dict(peer_env, PATH=os.pathsep.join([converter_folder(), peer_env.get("PATH", "")]))
    code, log, wall = run(peer_command(model_file, quantize, out), out, env, timeout)
    pte_path = next((os.path.join(out, f) for f in sorted(os.listdir(out)) if f.endswith(".pte")), None)
    result = Result(ok=code == 0 and pte_path is not None, compile_s=round(wall, 2))
    result.cpu_ops = peer_cpu_ops(log) if result.ok else []
    result.detail = "" if result.ok else f"exit code {code}:\n{_tail(log)}"
    found["peer"] = (result, pte_path if result.ok else None)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    compile_benchmark.add_shared_options(
        parser, DEFAULT_MODELS, DEFAULT_PROFILES, "comma-separated FP, INT", "vgf_benchmark.json", 900.0
    )
    args = parser.parse_args(argv)
    launcher = compile_benchmark._etarm_launcher(args.etarm)
    envs = compile_benchmark._environments(launcher)
    json_path = args.json or compile_benchmark.default_json_path("vgf_benchmark.json")
    rows = []
    with tempfile.TemporaryDirectory(prefix="etarm_vgf_bench_") as scratch:
        for model in args.models:
            model_file = compile_benchmark.write_model_file(scratch, model)
            module, inputs = load_model(model)
            with torch.no_grad():
                expected = module(*inputs)
            expected_float = [t.numpy() for t in (expected if isinstance(expected, (tuple, list)) else (expected,))]
            for profile in args.targets:
                quantize = profile == "INT"
                tosa = compile_model(module, inputs, PROFILE_SPECS[profile], quantize=quantize)
                expected_tosa = Program(tosa.pte).run(inputs).outputs
                found = compile_both(launcher, envs, model_file, quantize, scratch, args.timeout)
                row = {"model": model, "profile": profile}
                for tool in TOOLS:
                    result, pte_path = found[tool]
                    if result.ok:
                        with open(pte_path, "rb") as f:
                            pte = f.read()
                        payloads = [p for p in delegate_payloads(pte) if p.backend_id == "VgfBackend"]
                        result.partitions, result.vgf_bytes = len(payloads), sum(len(p.data) for p in payloads)
                        try:
                            run_on_lavapipe(result, pte, inputs, expected_float, expected_tosa)
                        except Exception as exc:  # a program etarm's runtime cannot run: say so in the table
                            result.detail = f"runs on lavapipe: {type(exc).__name__}: {exc}"
                    row[tool] = dataclasses.asdict(result)
                    status = f"{result.compile_s:.1f} s compile" if result.ok else "FAILED"
                    print(
                        f"{model:18} {profile:3} {tool:5} {status} {result.detail.splitlines()[0] if result.detail else ''}",
                        flush=True,
                    )
                rows.append(row)
    from importlib.metadata import version

    result = {
        "date": datetime.date.today().isoformat(),
        "executorch": version("executorch"),
        "model_converter": version("ai-ml-sdk-model-converter"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count()},
        "commands": {
            "etarm": " ".join(etarm_command(launcher, "MODEL.py", False, "OUT")[0]),
            "peer": " ".join(peer_command("MODEL.py", False, "OUT")),
        },
        "results": rows,
    }
    compile_benchmark.write_json(json_path, result)
    print()
    print(
        f"VGF, {result['date']}, model converter {result['model_converter']}: etarm / peer (executorch {result['executorch']})"
    )
    print(format_table(rows))
    print(f"wrote {json_path}")
    return compile_benchmark.exit_status(sum(not row[tool]["ok"] for row in rows for tool in TOOLS))


def _pair(row: dict, key: str, fmt: str) -> str:
    values = [row[tool][key] for tool in TOOLS]
    return " / ".join("-" if v is None else format(v, fmt) for v in values)


def format_table(rows: list[dict]) -> str:
    header = "| model | profile | CPU ops | partitions | compile s | compile ratio | .vgf bytes | load s (lavapipe) | execute ms (lavapipe) | max error vs float | max error vs TOSA reference |"
    lines = [header, "|" + "---|" * 11]
    for row in rows:
        etarm, peer = row["etarm"], row["peer"]
        ratio = (
            f"{etarm['compile_s'] / peer['compile_s']:.2f}" if etarm["ok"] and peer["ok"] and peer["compile_s"] else "-"
        )
        execute = " / ".join("-" if row[t]["execute_s"] is None else f"{row[t]['execute_s'] * 1000:.1f}" for t in TOOLS)
        lines.append(
            f"| {row['model']} | {row['profile']} | {len(etarm['cpu_ops'])} / {len(peer['cpu_ops'])} "
            f"| {_pair(row, 'partitions', 'd')} | {_pair(row, 'compile_s', '.1f')} | {ratio} | {_pair(row, 'vgf_bytes', 'd')} "
            f"| {_pair(row, 'load_s', '.2f')} | {execute} | {_pair(row, 'error_vs_float', '.2g')} "
            f"| {_pair(row, 'error_vs_tosa', '.2g')} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
