"""Runs a model compiled for -t vgf through the VGF delegate on lavapipe (etarm.runtime) beside
the same model compiled for the TOSA profile -t vgf lowers with, on the TOSA reference model:
both programs run their CPU parts on the same kernels, so a difference is the delegate's."""

from __future__ import annotations

import numpy as np

from etarm.compiler import CompileResult, compile_model
from etarm.runtime import Program
from etarm.vgf.compile_spec import PROFILE_SPECS


def run_vgf_and_tosa(module, inputs: tuple, profile: str, vgf: CompileResult | None = None):
    """(the -t vgf compile, its outputs on lavapipe, the TOSA program's outputs)."""
    quantize = profile == "INT"
    vgf = vgf or compile_model(module, inputs, "vgf", quantize=quantize)
    tosa = compile_model(module, inputs, PROFILE_SPECS[profile], quantize=quantize)
    return vgf, Program(vgf.pte).run(inputs).outputs, Program(tosa.pte).run(inputs).outputs


def assert_same_outputs(profile: str, got: list[np.ndarray], want: list[np.ndarray]) -> None:
    """INT (and integer outputs) bit-exact; FP within 1e-5 relative."""
    assert len(got) == len(want)
    for index, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.shape == b.shape, f"output {index}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        if profile == "INT" or not np.issubdtype(a.dtype, np.floating):
            np.testing.assert_array_equal(a, b, err_msg=f"output {index}")
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=f"output {index}")
