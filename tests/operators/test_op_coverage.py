"""The op-coverage matrix (python/etarm/testing/op_coverage.py): every registered operator's
sample (python/etarm/testing/op_samples.py) on TOSA-1.0+FP, TOSA-1.0+INT, ethos-u55-128,
ethos-u85-256 and vgf (float, and quantized: "vgf -q"), against the outcome its row states.

One operator's cases: ``pytest tests/operators/test_op_coverage.py -k softmax`` (test ids
are ``<op>-<registry target>-<target>``). Cases are ordered by sample and target, so a
sample compiles once per target for all the operators it stands for (and a Bazel shard,
a contiguous slice, mostly compiles each of its samples once).
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
import zlib

import etarm.operators  # noqa: F401  (registers every visitor)
import numpy as np
import pytest
import torch
import tosa_reference_model
from etarm.compiler import compile_model
from etarm.lowering.registry import registered_targets
from etarm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from etarm.pte import delegate_payloads
from etarm.testing.op_coverage import FP, MATRIX, RUNS, TARGETS, VGF_INT, VGF_PROFILES
from etarm.testing.npu_model_reference import partition_differences
from etarm.testing.op_samples import FLOAT_SAMPLES, SAMPLES, OpSample
from etarm.testing.quantized_reference import lower_and_run_quantized
from etarm.testing.tosa_reference import assert_matches, lower_and_run

QDQ = frozenset(
    {"quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.default"}
)
ETHOS_U = ("ethos-u55-128", "ethos-u85-256")
# The Ethos-U targets the NPU model (etarm.npu_model) runs: their partitions must compute
# exactly what their .tosa computes on the TOSA reference model.
NPU_MODEL_TARGETS = ("ethos-u55-128", "ethos-u85-256")
FP_TOLERANCE = 1e-5  # atol and rtol, as assert_close_to_torch
INT_MAX_LSB = 1.0  # as assert_quantized_close


def sample_of(op: str, target: str) -> OpSample:
    return FLOAT_SAMPLES.get(op, SAMPLES[op]) if VGF_PROFILES.get(target, target) == FP else SAMPLES[op]


@dataclasses.dataclass
class Compiled:
    report: dict
    # FP / INT: op -> None (its outputs match) or why not; ops expected on CPU are absent.
    numerics: dict[str, str | None]
    # Ethos-U: per partition, why the TOSA graph given to Vela is not valid TOSA (None: it is).
    invalid_tosa: list = dataclasses.field(default_factory=list)
    # NPU_MODEL_TARGETS: where the partitions' streams on the NPU model differ from their .tosa,
    # by (partition, output index or None for the whole partition).
    npu_model_differences: dict = dataclasses.field(default_factory=dict)


def _invalid_tosa(partition: dict) -> str | None:
    """Runs the partition's TOSA graph (after the Ethos-U rewrites, as Vela read it) on the TOSA
    reference model, which validates every operator before it computes anything."""
    inputs = [np.zeros(entry["shape"], dtype=entry["dtype"]) for entry in partition["inputs"]]
    with open(partition["tosa_file"], "rb") as f:
        _outputs, status = tosa_reference_model.run(f.read(), inputs)
    return None if status == tosa_reference_model.GraphStatus.TOSA_VALID else str(status)


def _npu_model_differences(partitions: list[dict], target: str, sample_name: str) -> dict:
    """(partition, output index or None for the whole partition) -> where the partition's
    payload on the NPU model differs from its .tosa on the TOSA reference model."""
    differences = {}
    for index, partition in enumerate(partitions):
        seed = zlib.crc32(f"{sample_name}/{target}/{index}".encode())
        found = partition_differences(partition, target, seed)
        differences.update({(index, output): lines for output, lines in found.items()})
    return differences


def npu_model_differences_of(compiled_sample: Compiled, report: dict, sample: OpSample, op: str) -> list[str]:
    """The differences that concern ``op``'s output: its partition output's, and its partition's."""
    source = report["outputs_from"][sample.ops.index(op)]
    return [
        f"partition {partition} output {output}: {line}" if output is not None else f"partition {partition}: {line}"
        for (partition, output), lines in compiled_sample.npu_model_differences.items()
        if source is None or (partition == source[0] and output in (None, source[1]))
        for line in lines
    ]


def _fp_errors(run, ops) -> dict[str, str | None]:
    errors = {}
    for op, got, want in zip(ops, run.tosa_outputs, run.torch_outputs):
        try:
            assert_matches(got, want, FP_TOLERANCE, FP_TOLERANCE)
            errors[op] = None
        except AssertionError as error:
            errors[op] = f"differs from torch: {error}"
    return errors


def _int_errors(run, ops) -> dict[str, str | None]:
    errors = {}
    for op, got, want, lsb in zip(ops, run.dequantized, run.expected, run.lsb_errors()):
        if got.shape != want.shape:
            errors[op] = f"shape {tuple(got.shape)} != {tuple(want.shape)}"
        else:
            errors[op] = None if lsb <= INT_MAX_LSB + 1e-3 else f"differs from the quantized model by {lsb:.3f} LSB"
    return errors


def _reference_run(module, inputs, target, ops):
    """Lowers ``module`` (one output per op of ``ops``) whole and compares each output."""
    if target == FP:
        run = lower_and_run(module, inputs, target)
        return run.result, _fp_errors(run, ops)
    run = lower_and_run_quantized(module, inputs, target)
    return run.result, _int_errors(run, ops)


@functools.lru_cache(maxsize=None)
def compiled(sample_name: str, target: str) -> Compiled:
    """The sample compiled for ``target`` (shared by its operators). On FP and INT the
    operators expected to run are also run on the TOSA reference model: with the whole
    sample when all of it is expected to run (one compile), else as a module of their own."""
    sample = next(s for s in list(SAMPLES.values()) + list(FLOAT_SAMPLES.values()) if s.name == sample_name)
    if target in ETHOS_U:
        quantizer = EthosUQuantizer(target, exact_composites=True).set_global(get_symmetric_quantization_config())
        with tempfile.TemporaryDirectory() as intermediates:
            report = compile_model(
                sample.module(), sample.inputs(), target, quantize=True, quantizer=quantizer, intermediates_dir=intermediates
            ).report
            invalid = [_invalid_tosa(partition) for partition in report["partitions"]]
            on_model = target in NPU_MODEL_TARGETS and not any(invalid)
            differences = _npu_model_differences(report["partitions"], target, sample_name) if on_model else {}
            return Compiled(report, {}, invalid, differences)
    if target in VGF_PROFILES:
        result = compile_model(sample.module(), sample.inputs(), "vgf", quantize=target == VGF_INT)
        kinds = {(p.backend_id, p.data[:4]) for p in delegate_payloads(result.pte)}
        assert kinds <= {("VgfBackend", b"VGF1")}, f"{sample_name} on {target}: payloads {kinds}"
        return Compiled(result.report, {})
    running = [op for op in sample.ops if MATRIX[op].outcomes[target] == RUNS]
    report = None
    numerics: dict[str, str | None] = {}
    if running:
        module = sample.module() if running == list(sample.ops) else sample.module_of(running)
        try:
            result, numerics = _reference_run(module, sample.inputs(), target, running)
            if running == list(sample.ops):
                report = result.report
        except AssertionError as error:  # not delegated whole: the outcome check tells where
            numerics = {op: f"not lowered whole ({error})" for op in running}
    if report is None:
        report = compile_model(sample.module(), sample.inputs(), target, quantize=target != FP).report
    return Compiled(report, numerics)


def delegated_ops(report: dict) -> set[str]:
    return {op for p in report["partitions"] for op in p["aten_ops"]}


def _int64_input_cast(entry: dict) -> bool:
    """The int32 cast of an int64 model input (ids) that Ethos-U partitions cannot read:
    like an input's quantize, it is the program's boundary, not part of an operator."""
    return entry["op"] == "dim_order_ops._to_dim_order_copy.default" and "an input is int64" in entry["reason"]


def cpu_entries(report: dict, target: str) -> list[dict]:
    """The nodes left on CPU, but for the quantize/dequantize nodes of a quantized flow and
    the casts of int64 inputs for Ethos-U."""
    if VGF_PROFILES.get(target, target) == FP:
        return list(report["cpu_ops"])
    return [entry for entry in report["cpu_ops"] if entry["op"] not in QDQ and not _int64_input_cast(entry)]


def observed(report: dict, sample: OpSample, op: str, target: str) -> str:
    """What happened to ``op``: RUNS, "cpu: <its nodes' reasons>", or a description.

    An operator that export or a pass rewrote into others (none of its edge operators is
    in the graph) runs when its output is a partition output and nothing of it is on CPU.
    """
    edge = sample.edge_ops(op)
    on_cpu = [e["reason"] for e in cpu_entries(report, target) if e["op"] in edge]
    if on_cpu:
        return "cpu: " + " | ".join(sorted(set(on_cpu)))
    if set(edge) & delegated_ops(report) == set(edge):
        return RUNS
    others = sorted({e["reason"] for e in cpu_entries(report, target)})
    if set(edge) & delegated_ops(report) or others:
        return "partly delegated; " + ("cpu: " + " | ".join(others) if others else "no CPU reason")
    source = report["outputs_from"][sample.ops.index(op)]
    return RUNS if source is not None else "its output is not a partition output"


def check(compiled_sample: Compiled, sample: OpSample, op: str, target: str, expected: str) -> None:
    report = compiled_sample.report
    edge = sample.edge_ops(op)
    what = observed(report, sample, op, target)
    vela_cpu = [p["vela"].get("cpu_operators", 0) for p in report["partitions"] if p.get("vela")]
    assert not any(vela_cpu), f"{op} on {target}: Vela left operators on CPU ({vela_cpu})"
    if expected == RUNS:
        assert what == RUNS, f"{op} on {target}: expected to run, got {what}"
        if target in ETHOS_U:
            invalid = [status for status in compiled_sample.invalid_tosa if status]
            assert not invalid, f"{op} on {target}: the TOSA graph given to Vela is not valid TOSA ({invalid})"
            differences = npu_model_differences_of(compiled_sample, report, sample, op)
            assert not differences, f"{op} on {target}: the NPU model differs from the TOSA reference: {differences}"
            if all(MATRIX[other].outcomes[target] == RUNS for other in sample.ops):
                assert (
                    cpu_entries(report, target) == []
                ), f"{op} on {target}: {sample.name} left {cpu_entries(report, target)} on CPU"
                boundary = len(report["inputs"]) + len(report["outputs_from"])
                qdq = len(report["cpu_ops"])
                assert (
                    qdq <= boundary
                ), f"{op} on {target}: {qdq} Q/DQ nodes on CPU, more than the {boundary} at the boundary"
        elif target not in VGF_PROFILES:  # a .vgf runs in runtime/vgf's tests
            error = compiled_sample.numerics.get(op, "not run on the reference model")
            assert error is None, f"{op} on {target}: {error}"
        return
    reason = expected.removeprefix("cpu: ")
    reasons = [e["reason"] for e in cpu_entries(report, target) if e["op"] in edge]
    if not reasons:  # the op was decomposed (its check failed before): some piece says why
        assert not set(edge) & delegated_ops(
            report
        ), f"{op} on {target}: expected on CPU ({reason}), but it is delegated"
        reasons = [e["reason"] for e in cpu_entries(report, target)]
    assert any(reason in r for r in reasons), f"{op} on {target}: expected on CPU with '{reason}', got {what}"


def test_every_registered_operator_has_a_row():
    ops = set(registered_targets())
    assert sorted(ops - set(MATRIX)) == [], "registered operators without a row in op_coverage.py"
    assert sorted(set(MATRIX) - ops) == [], "rows for operators that are no longer registered"


def test_rows_are_keyed_by_the_visitor_module():
    """``row("softmax", ...)`` names python/etarm/operators/op_softmax.py, whose visitor lowers the row's target."""
    wrong = {
        target: (row.op, type(registered_targets()[target]).__module__)
        for target, row in MATRIX.items()
        if target in registered_targets()
        and type(registered_targets()[target]).__module__ != f"etarm.operators.op_{row.op}"
    }
    assert wrong == {}


def test_every_registered_operator_has_a_sample():
    assert (
        sorted(set(registered_targets()) - set(SAMPLES)) == []
    ), "registered operators without a sample in op_samples.py"


def test_each_sample_has_one_output_per_operator():
    for sample in {s.name: s for s in list(SAMPLES.values()) + list(FLOAT_SAMPLES.values())}.values():
        with torch.no_grad():
            outputs = sample.module()(*sample.inputs())
        count = len(outputs) if isinstance(outputs, (tuple, list)) else 1
        assert count == len(sample.ops), f"{sample.name}: {count} outputs for {len(sample.ops)} operators"


# Grouped by sample and target, so each sample compiles once per target.
CASES = sorted(
    ((sample_of(op, target).name, op, target) for op in MATRIX for target in TARGETS),
    key=lambda case: (case[0], TARGETS.index(case[2]), case[1]),
)


@pytest.mark.parametrize(
    "sample_name, op, target", CASES, ids=[f"{MATRIX[op].op}-{op}-{target}" for _sample, op, target in CASES]
)
def test_outcome(sample_name, op, target):
    sample = sample_of(op, target)
    check(compiled(sample_name, target), sample, op, target, MATRIX[op].outcomes[target])
