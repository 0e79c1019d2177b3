"""-t vgf programs run through the VGF delegate on lavapipe (the ML emulation layers), from the
.pte on the genuine host runtime (etarm.runtime): every op sample, float and quantized,
against the same model compiled for the TOSA profile -t vgf lowers with and run on the TOSA
reference model (INT bit-exact; FP within 1e-5 relative). Built-in networks: test_models.py."""

import pytest

from etarm.testing.op_coverage import MATRIX, RUNS
from etarm.testing.op_samples import FLOAT_SAMPLES, SAMPLES
from etarm.testing.vgf_runs import assert_same_outputs, run_vgf_and_tosa


def distinct(samples):
    seen, found = set(), []
    for sample in samples:
        if sample.name not in seen:
            seen.add(sample.name)
            found.append(sample)
    return found


def running_ops(sample, profile):
    column = "vgf" if profile == "FP" else "vgf -q"
    return [op for op in sample.ops if MATRIX[op].outcomes[column] == RUNS]


FP_SAMPLES = distinct(FLOAT_SAMPLES.get(op, s) for op, s in SAMPLES.items())
CASES = [pytest.param(s, "FP", id=f"FP-{s.name}") for s in FP_SAMPLES if running_ops(s, "FP")]
CASES += [pytest.param(s, "INT", id=f"INT-{s.name}") for s in distinct(SAMPLES.values()) if running_ops(s, "INT")]


def delegated_module(sample, profile):
    """The sample, or only its operators that run on -t vgf when others stay on CPU (the host
    runtime has no kernel for some of those, e.g. shifts of float-profile integers)."""
    running = running_ops(sample, profile)
    if running == list(sample.ops) or not sample.fns:
        return sample.module()
    return sample.module_of(running)


@pytest.mark.parametrize("sample, profile", CASES)
def test_op_sample(sample, profile):
    inputs = sample.inputs()
    result, got, want = run_vgf_and_tosa(delegated_module(sample, profile), inputs, profile)
    assert {p["backend"] for p in result.report["partitions"]} <= {"VgfBackend"}
    assert_same_outputs(profile, got, want)
