"""The NPU model's own speed: multiply-accumulates per second on the host, per network and NPU.

Each etarm built-in network (the full-size ones too, by default) compiles quantized for each
NPU, keeping its partitions' payloads; each Ethos-U partition's command stream then runs on
etarm's NPU model through etarm.npu_model.run_payload (arena set up, inputs placed, stream
run, outputs read) on random inputs within the range its .tosa gives them. A network's time
is the sum over its partitions of the fastest of --repetitions runs (after one warm-up);
its MACs are Vela's count (``Neural network macs``), so MAC/s is the rate the model
computes what the NPU would. The time of a test in `bazel test` that runs a network on
the NPU model is about this figure; the issue's aim is under one second for the largest
built-in network.

    ./bazelw run //benchmarks:npu_model [-- --models unet,resnet18 --targets ethos-u85-256]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import compile as compile_benchmark  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
from benchmarks import benchmark_results  # noqa: E402

DEFAULT_TARGETS = "ethos-u55-128,ethos-u85-256"


@dataclasses.dataclass
class Measurement:
    ok: bool
    partitions: int = 0
    macs: int = 0  # Vela's count over the network's Ethos-U partitions
    seconds: float = 0.0  # the NPU model, summed over the partitions (fastest repetition each)
    vela_seconds: float = 0.0  # Vela's estimate of the NPU's own time, for scale
    compile_s: float = 0.0
    detail: str = ""

    @property
    def macs_per_second(self) -> float:
        return self.macs / self.seconds if self.seconds else 0.0


def default_models() -> str:
    from etarm.models.registry import builtin_names

    return ",".join(name for name in builtin_names(full_size=True) if name not in ("add", "sub", "mul"))


def time_partition(partition: dict, target: str, repetitions: int, seed: int) -> float:
    """The fastest of ``repetitions`` runs of one partition's stream on the NPU model, after a warm-up."""
    from etarm.ethosu.payload import EthosUPayload
    from etarm.npu_model import run_payload
    from etarm.testing.npu_model_reference import index_ranges, input_sets

    with open(partition["payload_file"], "rb") as payload_file, open(partition["tosa_file"], "rb") as tosa_file:
        payload, flatbuffer = payload_file.read(), tosa_file.read()
    placements = EthosUPayload.from_bytes(payload).inputs
    ((_label, arrays),) = input_sets(placements, seed, extremes=False, ranges=index_ranges(flatbuffer))
    run_payload(payload, target, arrays)
    fastest = float("inf")
    for _ in range(repetitions):
        start = time.perf_counter()
        run_payload(payload, target, arrays)
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def measure(model: str, target: str, scratch: str, repetitions: int, seed: int) -> Measurement:
    from etarm.compiler import compile_model
    from etarm.models import load_model

    module, inputs = load_model(model)
    directory = os.path.join(scratch, model, target)
    start = time.perf_counter()
    try:
        compiled = compile_model(module, inputs, target, quantize=True, intermediates_dir=directory)
    except Exception as exc:  # a network that does not compile is reported, the others still run
        return Measurement(False, detail=f"compile failed: {type(exc).__name__}: {exc}")
    result = Measurement(True, compile_s=round(time.perf_counter() - start, 2))
    for partition in compiled.report["partitions"]:
        vela = partition.get("vela")
        if not vela:
            continue
        try:
            result.seconds += time_partition(partition, target, repetitions, seed)
        except Exception as exc:  # the NPU model's or the payload's error, named in the table
            return dataclasses.replace(result, ok=False, detail=f"{type(exc).__name__}: {exc}")
        result.partitions += 1
        result.macs += vela["macs"]
        result.vela_seconds += vela["inference_time_s"]
    if result.partitions == 0:
        return dataclasses.replace(result, ok=False, detail="no Ethos-U partition")
    return result


def format_table(rows: list[dict]) -> str:
    header = (
        f"{'model':<20} {'target':<15} {'parts':>5} {'MACs':>14} {'model ms':>10} {'MAC/s':>10} "
        f"{'Vela us':>9} {'compile s':>9}"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        if not row["ok"]:
            lines.append(f"{row['model']:<20} {row['target']:<15} FAILED: {row['detail']}")
            continue
        lines.append(
            f"{row['model']:<20} {row['target']:<15} {row['partitions']:>5} {row['macs']:>14,} "
            f"{row['seconds'] * 1e3:>10.2f} {row['macs_per_second']:>10.3g} {row['vela_seconds'] * 1e6:>9.0f} "
            f"{row['compile_s']:>9.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=compile_benchmark._comma_separated, help="default: every built-in network")
    parser.add_argument("--targets", type=compile_benchmark._comma_separated, default=DEFAULT_TARGETS)
    parser.add_argument(
        "--json", default=None, help="results file (default: npu_model_benchmark.json in the workspace)"
    )
    parser.add_argument("--repetitions", type=int, default=3, help="timed runs per partition (the fastest counts)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    args = parser.parse_args(argv)
    models = args.models or compile_benchmark._comma_separated(default_models())
    json_path = os.path.abspath(args.json or compile_benchmark.default_json_path("npu_model_benchmark.json"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="npu_model_benchmark_") as scratch:
        for model in models:
            for target in args.targets:
                result = measure(model, target, scratch, args.repetitions, args.seed)
                row = {"model": model, "target": target, **dataclasses.asdict(result)}
                rows.append(dict(row, macs_per_second=result.macs_per_second))
                print(format_table(rows[-1:]).splitlines()[2], flush=True)  # its row, as it comes
    print(format_table(rows))
    largest = max((row for row in rows if row["ok"]), key=lambda row: row["macs"], default=None)
    if largest:
        print(
            f"largest network measured: {largest['model']} on {largest['target']}, {largest['macs']:,} MACs "
            f"in {largest['seconds'] * 1e3:.1f} ms on the NPU model"
        )
    settings = {"machine": platform.machine(), "repetitions": args.repetitions}
    return benchmark_results.finish(json_path, settings, rows, "networks did not run")


if __name__ == "__main__":
    sys.exit(main())
