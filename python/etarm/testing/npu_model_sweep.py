"""The op-coverage matrix's Ethos-U55 partitions on the NPU model: every operator sample
(op_samples.py) with an operator that runs on ``ethos-u55-128`` (op_coverage.py) is compiled
as tests/operators/test_op_coverage.py compiles it, and each partition's payload runs on the
NPU model against its .tosa on the TOSA reference model (npu_model_reference.py). An operator
is bit-exact when the partition output it comes from is, on every input set.

    python -m etarm.testing.npu_model_sweep [SUBSTRING ...]   # samples or operators to run

It prints one line per operator that differs and the counts; it exits 1 if any differs.
"""

from __future__ import annotations

import sys
import tempfile
import zlib

from etarm.compiler import compile_model
from etarm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from etarm.testing.npu_model_reference import WHOLE_PARTITION, partition_differences
from etarm.testing.op_coverage import MATRIX, RUNS
from etarm.testing.op_samples import SAMPLES, OpSample

TARGET = "ethos-u55-128"


def sample_differences(sample: OpSample, target: str = TARGET) -> dict[str, list[str]]:
    """Operator of ``sample`` that runs on ``target`` -> where its output differs (empty: bit-exact)."""
    quantizer = EthosUQuantizer(target, exact_composites=True).set_global(get_symmetric_quantization_config())
    with tempfile.TemporaryDirectory() as intermediates:
        report = compile_model(
            sample.module(),
            sample.inputs(),
            target,
            quantize=True,
            quantizer=quantizer,
            intermediates_dir=intermediates,
        ).report
        found = {}
        for index, partition in enumerate(report["partitions"]):
            seed = zlib.crc32(f"{sample.name}/{target}/{index}".encode())
            found[index] = partition_differences(partition, target, seed)
    result = {}
    for position, op in enumerate(sample.ops):
        if MATRIX[op].outcomes[target] != RUNS:
            continue
        source = report["outputs_from"][position]
        partitions = found.items() if source is None else [(source[0], found[source[0]])]
        result[op] = [
            line
            for _index, by_output in partitions
            for output, lines in by_output.items()
            if source is None or output in (WHOLE_PARTITION, source[1])
            for line in lines
        ]
    return result


def main(filters: list[str]) -> int:
    samples = {s.name: s for s in SAMPLES.values() if any(MATRIX[op].outcomes[TARGET] == RUNS for op in s.ops)}
    exact = differ = 0
    for name, sample in sorted(samples.items()):
        if filters and not any(f in name or any(f in op for op in sample.ops) for f in filters):
            continue
        for op, lines in sample_differences(sample).items():
            if lines:
                differ += 1
                print(f"{op} ({name}): {lines[0]}" + (f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""))
            else:
                exact += 1
    print(f"{TARGET}: {exact} of {exact + differ} operators that run on the NPU are bit-exact on the NPU model")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
