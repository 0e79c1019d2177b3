"""Payload compatibility: ExecuTorch's Arm backend's Ethos-U programs run on etarm's delegate.

Per model and NPU, executorch's aot_arm_compiler (the peer, always a separate process;
etarm never imports it) compiles an etarm built-in, quantized and delegated:

    python -m executorch.backends.arm.scripts.aot_arm_compiler --model_name MODEL.py
        --target TARGET --quantize --delegate --intermediates DIR --output DIR

Its .pte then runs in this process on etarm.runtime: ExecuTorch's genuine host runtime,
etarm's EthosUBackend delegate reading the peer's payload, and etarm's NPU model executing
the peer's Vela command stream. The peer's own .tosa of the partition (in its intermediates)
runs on the TOSA reference model with the same inputs, and the two must agree on every
output value. Inputs lie on the partition's input quantization grid (random levels, all
minimum, all maximum, all zero), so the CPU quantize node the peer leaves in front of the
partition is exact and the dequantized output converts back to its integers losslessly:
the comparison is integer against integer. A model must be one partition with one input
and one output (what the comparison can pair without the peer's naming).

    ./bazelw run //benchmarks:ethosu_compat [-- --models mlp,ds_cnn --targets ethos-u55-128]
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import os
import sys
import tempfile

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import compile as compile_benchmark  # noqa: E402
import float_error  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
from benchmarks import benchmark_results  # noqa: E402

DEFAULT_MODELS = "mlp,cnn_bn,ds_cnn,inverted_residual"
DEFAULT_TARGETS = "ethos-u55-128,ethos-u85-256"
RANDOM_SETS = 3


@dataclasses.dataclass
class Comparison:
    ok: bool
    values: int = 0  # output values compared
    differ: int = 0
    compile_s: float = 0.0  # the peer's compile, wall time
    run_s: float = 0.0  # the .pte on etarm.runtime, summed over the input sets
    detail: str = ""


def grid_inputs(shape: tuple[int, ...], quant, seed: int) -> list[np.ndarray]:
    """Integer input sets of ``quant``'s dtype: random levels, then all minimum, all maximum, all zero."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(str(quant.dtype).removeprefix("torch."))
    sets = [rng.integers(quant.qmin, quant.qmax, size=shape, endpoint=True) for _ in range(RANDOM_SETS)]
    sets += [np.full(shape, value) for value in (quant.qmin, quant.qmax, quant.zero_point)]
    return [levels.astype(dtype) for levels in sets]


def levels_of(values: np.ndarray, quant) -> np.ndarray:
    """The integer levels of dequantized float32 ``values``; an error if any is off the grid."""
    levels = np.rint(values.astype(np.float64) / quant.scale) + quant.zero_point
    back = ((levels - quant.zero_point) * np.float32(quant.scale)).astype(np.float32)
    if not np.array_equal(back, values):
        raise ValueError("the program's output is not on its output quantization grid")
    return levels.astype(np.int64)


def compare(pte_path: str, tosa_path: str, seed: int) -> Comparison:
    """The peer's .pte on etarm.runtime against its .tosa on the TOSA reference model."""
    from etarm.runtime import Program
    from etarm.tosa.reference_model import run_tosa

    found = float_error._pte_quantize_arguments(pte_path)
    if len(found["quantize_per_tensor"]) != 1 or len(found["dequantize_per_tensor"]) != 1:
        return Comparison(False, detail="not one quantized input and one quantized output")
    (source,), (target,) = found["quantize_per_tensor"], found["dequantize_per_tensor"]
    with open(pte_path, "rb") as f:
        program = Program(f.read())
    with open(tosa_path, "rb") as f:
        tosa = f.read()
    (spec,) = program.input_specs
    result = Comparison(True)
    for levels in grid_inputs(spec.shape, source, seed):
        floats = ((levels.astype(np.float64) - source.zero_point) * np.float32(source.scale)).astype(np.float32)
        run = program.run([floats])
        result.run_s += run.seconds
        got = levels_of(np.asarray(run.outputs[0]), target)
        (want,) = run_tosa(tosa, [levels])
        want = np.asarray(want).astype(np.int64).reshape(got.shape)
        result.values += got.size
        result.differ += int(np.count_nonzero(got != want))
    result.ok = result.differ == 0
    if not result.ok:
        result.detail = f"{result.differ} of {result.values} output values differ from the TOSA reference model"
    return result


def run_one(model: str, target: str, scratch: str, env: dict, timeout: float, seed: int) -> Comparison:
    out = os.path.join(scratch, model, target)
    os.makedirs(out, exist_ok=True)
    model_file = compile_benchmark.write_model_file(out, model)
    intermediates = os.path.join(out, "intermediates")
    command, _ = compile_benchmark.peer_command(model_file, target, out)
    command += ["--quantize", "--intermediates", intermediates]
    peer = compile_benchmark.timed_run(command, out, out, env, timeout)
    if not peer.ok:
        return Comparison(False, compile_s=peer.wall_s, detail=f"the peer failed: {peer.detail}")
    tosa = sorted(glob.glob(os.path.join(intermediates, "output_tag*.tosa")))
    ptes = sorted(glob.glob(os.path.join(out, "*.pte")))
    if len(tosa) != 1 or len(ptes) != 1:
        return Comparison(False, compile_s=peer.wall_s, detail=f"{len(tosa)} partitions, {len(ptes)} programs: not 1")
    try:
        result = compare(ptes[0], tosa[0], seed)
    except Exception as exc:  # any failure of one pair is reported and the others still run
        result = Comparison(False, detail=f"{type(exc).__name__}: {exc}")
    result.compile_s = peer.wall_s
    return result


def format_table(rows: list[dict]) -> str:
    header = f"{'model':<20} {'target':<15} {'result':<7} {'values':>8} {'differ':>7} {'peer s':>7} {'run ms':>7}"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row['model']:<20} {row['target']:<15} {'same' if row['ok'] else 'FAIL':<7} {row['values']:>8} "
            f"{row['differ']:>7} {row['compile_s']:>7.1f} {row['run_s'] * 1e3:>7.2f}"
        )
        if row["detail"]:
            lines.append(f"    {row['detail']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    compile_benchmark.add_shared_options(
        parser, DEFAULT_MODELS, DEFAULT_TARGETS, "comma-separated Ethos-U targets", "ethosu_compat.json", timeout=900
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random input levels")
    args = parser.parse_args(argv)
    json_path = os.path.abspath(args.json or compile_benchmark.default_json_path("ethosu_compat.json"))
    _etarm_env, peer_env = compile_benchmark._environments([sys.executable])
    rows = []
    with tempfile.TemporaryDirectory(prefix="ethosu_compat_") as scratch:
        for model in args.models:
            for target in args.targets:
                result = run_one(model, target, scratch, peer_env, args.timeout, args.seed)
                rows.append({"model": model, "target": target, **dataclasses.asdict(result)})
                print(format_table(rows[-1:]).splitlines()[2], flush=True)  # its row, as it comes
    print(format_table(rows))
    settings = {"random_sets": RANDOM_SETS, "seed": args.seed}
    return benchmark_results.finish(json_path, settings, rows, "programs did not match")


if __name__ == "__main__":
    sys.exit(main())
