"""Cortex-M: etarm's int8 cortex_m programs against the portable fp32 ones, and against the aot_arm_compiler's flow.

Per network and board (footprint images from benchmarks/BUILD.bazel, named
cortex_m_<model>_<board>_<fp32|int8>_footprint):

- **Instructions per inference** of the int8 program (`-t cortex-m55 -q` on the Corstone-300,
  CMSIS-NN's MVE path; the image links //kernels/cortex_m) and of the fp32 program of the same model (TOSA-1.0+FP, not
  delegated: the portable kernels), under QEMU -icount as in benchmarks/footprint.py, and
  their ratio fp32 / int8.
- **.text** of each image and of its kernels (cortex_m, CMSIS-NN, portable) from the map.

Per network, each compile a fresh process (benchmarks/compile.py):
    etarm compile -m MODEL.py -t cortex-m55 -q -o OUT.pte
    python -m executorch.backends.arm.scripts.aot_arm_compiler --model_name MODEL.py
        --target cortex-m55 --delegate --output DIR --quantize
the wall time of each, and the operators each program leaves in fp32: those that are not
cortex_m:: kernels, not quantize/dequantize and not pure data movement.

    ./bazelw run //benchmarks:cortex_m [-- --json out.json]
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import tempfile

from benchmarks import compile as compile_benchmark
from benchmarks import footprint
from benchmarks.benchmark_results import default_json_path, write_json
from etarm.pte import cpu_operators

COMPILE_TARGET = "cortex-m55"
# board -> (-t of its int8 program, CMSIS-NN code path); the images' names carry the board.
BOARDS = {
    "corstone300": ("cortex-m55", "MVE"),
    "corstone300_nomve": ("cortex-m4", "DSP"),
}
PROGRAMS = ("fp32", "int8")
IMAGE_NAME = re.compile(r"cortex_m_(?P<model>.+)_(?P<board>%s)_(?P<program>fp32|int8)$" % "|".join(
    sorted(BOARDS, key=len, reverse=True)))  # fmt: skip
# Kernel libraries, by the paths the map names their archives with (CMSIS-NN: the external
# repository's library and etarm's code-path probe in third_party/cmsis_nn).
KERNEL_LIBRARIES = {
    "cortex_m": ("/bin/kernels/cortex_m/",),
    "CMSIS-NN": ("/libcmsis_nn.a(", "/bin/third_party/cmsis_nn/"),
    "portable": ("/bin/kernels/portable/",),
}
QUANTIZE_OPS = re.compile(r"(quantize_per_tensor|dequantize_per_tensor|quantize_per_channel|dequantize_per_channel)")
# Operators that only move, view or copy data: no arithmetic to quantize.
DATA_MOVEMENT_OPS = {
    "_clone_dim_order", "_to_dim_order_copy", "cat", "clone", "expand_copy", "permute_copy", "select_copy",
    "slice_copy", "split_with_sizes_copy", "squeeze_copy", "transpose_copy", "unsqueeze_copy", "upsample_nearest2d",
    "view_copy",
}  # fmt: skip


def fp32_operators(operators: list[str]) -> list[str]:
    """The operators (sorted, once each) that compute in fp32: not cortex_m::, not (de)quantize, not data movement."""
    left = set()
    for op in operators:
        namespace, _, name = op.rpartition("::")
        base = name.split(".")[0]
        if namespace == "cortex_m" or QUANTIZE_OPS.search(base) or base in DATA_MOVEMENT_OPS:
            continue
        left.add(op)
    return sorted(left)


def kernel_text(image: footprint.Image) -> dict[str, int]:
    """Bytes of .text each kernel library brings into the image, from its map."""
    pieces = footprint.parse_map(image.map_file, footprint.allocated_sections(image.elf))
    footprint.split_merged(pieces)
    text = dict.fromkeys(KERNEL_LIBRARIES, 0)
    for p in pieces:
        if footprint.kind_of(p.section, p.output) != "text":
            continue
        for library, paths in KERNEL_LIBRARIES.items():
            if any(path in p.path for path in paths):
                text[library] += p.size
    return text


def measure_images(files: list[str], cpu_hz: int, timeout: float) -> dict[tuple[str, str], dict]:
    """{(model, board): {program: {instructions, text, kernels_text, ...}}} for every image given."""
    measured: dict[tuple[str, str], dict] = {}
    for image in footprint.images_from_files(files):
        m = IMAGE_NAME.match(image.name)
        if not m:
            raise SystemExit(f"{image.elf}: not a cortex_m_<model>_<board>_<fp32|int8>_footprint image")
        size = footprint.measure_size(image)
        inference = footprint.measure_inference(image, cpu_hz, timeout)
        measured.setdefault((m["model"], m["board"]), {})[m["program"]] = {
            "instructions": inference["instructions"],
            "resolution_instructions": inference["resolution_instructions"],
            "arena_bytes_used": inference["arena_bytes_used"],
            "text": size["total"]["text"],
            "kernels_text": kernel_text(image),
            "unattributed": size["unattributed"],
        }
    for (model, board), programs in measured.items():
        missing = [p for p in PROGRAMS if p not in programs]
        if missing:
            raise SystemExit(f"{model} on {board}: no {' and '.join(missing)} image given")
    return measured


def model_files(specs: list[str], directory: str) -> dict[str, str]:
    """`name` (a built-in etarm model) or `name=path.py` (a model file) -> the model file both tools read."""
    files = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        files[name] = os.path.abspath(path) if path else compile_benchmark.write_model_file(directory, name)
    return files


def _pte_in(output: str) -> str:
    """The .pte a tool wrote: the file itself, or the one .pte in the peer's output directory."""
    if not os.path.isdir(output):
        return output
    found = [os.path.join(output, f) for f in os.listdir(output) if f.endswith(".pte")]
    if len(found) != 1:
        raise SystemExit(f"{output}: expected one .pte, found {found}")
    return found[0]


def compile_both(model_file: str, label: str, scratch: str, args, etarm: list[str], envs: tuple[dict, dict]) -> dict:
    """Each tool compiles the model once for COMPILE_TARGET with quantization, in a fresh process."""
    result = {}
    for tool, env in zip(compile_benchmark.TOOLS, envs):
        out_dir = tempfile.mkdtemp(prefix=f"{label}_{tool}_", dir=scratch)
        if tool == "etarm":
            command, output = compile_benchmark.etarm_command(etarm, model_file, COMPILE_TARGET, out_dir)
            command.append("-q")
        else:
            command, output = compile_benchmark.peer_command(model_file, COMPILE_TARGET, out_dir)
            command.append("--quantize")
        run = compile_benchmark.timed_run(command, output, out_dir, env, args.timeout)
        entry = {"command": " ".join(command), "wall_s": run.wall_s, "cpu_s": run.cpu_s, "ok": run.ok}
        if run.ok:
            with open(_pte_in(output), "rb") as f:
                operators = cpu_operators(f.read())
            entry["operators"] = operators
            entry["fp32_operators"] = fp32_operators(operators)
        else:
            entry["failure"] = run.detail
        status = f"{run.wall_s:6.2f} s" if run.ok else "FAILED\n" + run.detail
        print(f"{tool:5} {label:12} {COMPILE_TARGET} -q {status}", flush=True)
        result[tool] = entry
    return result


def _ops(entry: dict) -> str:
    if not entry["ok"]:
        return "failed"
    return ", ".join(op.split(".")[0] for op in entry["fp32_operators"]) or "none"


def markdown(rows: list[dict], date: str) -> str:
    lines = [
        f"Cortex-M benchmark, {date}: QEMU mps3-an547 (Cortex-M55) -icount, images at -Os; compiles for "
        f"`-t {COMPILE_TARGET} -q`, one fresh process each.",
        "",
        "| model | board (CMSIS-NN path) | fp32 instr. | int8 instr. | fp32 / int8 | fp32 .text | int8 .text "
        "| portable .text (fp32) | cortex_m + CMSIS-NN .text (int8) | etarm compile s | peer compile s "
        "| etarm ops left fp32 | peer ops left fp32 |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|",
    ]
    for r in rows:
        fp32, int8, compiled = r["fp32"], r["int8"], r["compile"]
        cmsis = int8["kernels_text"]["cortex_m"] + int8["kernels_text"]["CMSIS-NN"]
        lines.append(
            f"| {r['model']} | {r['board']} ({r['path']}) | {fp32['instructions']} | {int8['instructions']} "
            f"| {r['ratio']:.2f} | {fp32['text']} | {int8['text']} | {fp32['kernels_text']['portable']} | {cmsis} "
            + "".join(
                f"| {compiled[t]['wall_s']:.1f} " if compiled[t]["ok"] else "| failed " for t in ("etarm", "peer")
            )
            + f"| {_ops(compiled['etarm'])} | {_ops(compiled['peer'])} |"
        )
    lines += [
        "",
        "Instructions per inference (`execute()`); .text in bytes (the int8 image links the portable kernels too: "
        "quantize/dequantize and whatever else the program needs). Ops left fp32: not cortex_m::, not "
        "quantize/dequantize, not data movement.",
    ]
    return "\n".join(lines)


def check(rows: list[dict]) -> None:
    """Sanity of a run (--check, for the smoke test): no speed or size is asserted."""
    assert rows, "no images measured"
    for r in rows:
        for program in PROGRAMS:
            assert r[program]["instructions"] > 0, f"{r['model']} {program}: no instructions counted"
            assert not r[program]["unattributed"], f"{r['model']} {program}: map misses {r[program]['unattributed']}"
        assert r["int8"]["kernels_text"]["cortex_m"] > 0, f"{r['model']}: int8 image without cortex_m kernels"
        assert r["int8"]["kernels_text"]["CMSIS-NN"] > 0, f"{r['model']}: int8 image without CMSIS-NN"
        assert r["fp32"]["kernels_text"]["cortex_m"] == 0, f"{r['model']}: fp32 image with cortex_m kernels"
        for tool in compile_benchmark.TOOLS:
            assert r["compile"][tool]["ok"], f"{r['model']}: {tool} failed: {r['compile'][tool].get('failure')}"
            assert r["compile"][tool]["operators"], f"{r['model']}: {tool}'s program has no operators"
        assert any(op.startswith("cortex_m::") for op in r["compile"]["etarm"]["operators"]), "no cortex_m op"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=compile_benchmark._comma_separated, required=True,
                        help="comma-separated `name` (built-in model) or `name=path.py` (model file)")  # fmt: skip
    parser.add_argument("--images", nargs="+", required=True, help="ELF and map files of the footprint images")
    parser.add_argument("--calibration", nargs="+", required=True, help="the icount calibration image (its .elf)")
    parser.add_argument("--etarm", help="etarm launcher (default: $ETARM_CLI, else python -m etarm.cli)")
    parser.add_argument("--json", default=None, help="results file (default: cortex_m_benchmark.json in the workspace)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per compile or QEMU run")
    parser.add_argument("--check", action="store_true", help="sanity-check the results (smoke test)")
    args = parser.parse_args(argv)

    calibration_elf = next((p for p in args.calibration if p.endswith(".elf")), None)
    if calibration_elf is None:
        parser.error("--calibration needs the calibration image's .elf")
    calibration = footprint.calibrate(calibration_elf, args.timeout)
    measured = measure_images(args.images, calibration["cpu_hz"], args.timeout)

    etarm = compile_benchmark._etarm_launcher(args.etarm)
    envs = compile_benchmark._environments(etarm)
    with tempfile.TemporaryDirectory(prefix="etarm_cortex_m_bench_") as scratch:
        files = model_files(args.models, scratch)
        unknown = {model for model, _ in measured} - set(files)
        if unknown:
            raise SystemExit(f"images of models not in --models: {sorted(unknown)}")
        compiled = {name: compile_both(path, name, scratch, args, etarm, envs) for name, path in files.items()}

    rows = []
    for (model, board), programs in sorted(measured.items(), key=lambda kv: (list(files).index(kv[0][0]), kv[0][1])):
        rows.append({
            "model": model, "board": board, "int8_target": BOARDS[board][0], "path": BOARDS[board][1],
            "fp32": programs["fp32"], "int8": programs["int8"],
            "ratio": programs["fp32"]["instructions"] / programs["int8"]["instructions"],
            "compile": compiled[model],
        })  # fmt: skip
    date = datetime.date.today().isoformat()
    print()
    print(markdown(rows, date))
    json_path = os.path.abspath(args.json or default_json_path("cortex_m_benchmark.json"))
    write_json(json_path, {
        "date": date,
        "board": "QEMU mps3-an547 (Cortex-M55), -icount " + footprint.ICOUNT,
        "build": "size_optimized (-Os)",
        "calibration": calibration,
        "results": rows,
    })  # fmt: skip
    print(f"wrote {json_path}")
    if args.check:
        check(rows)
    return compile_benchmark.exit_status(
        sum(not runs[t]["ok"] for runs in compiled.values() for t in compile_benchmark.TOOLS)
    )


if __name__ == "__main__":
    sys.exit(main())
