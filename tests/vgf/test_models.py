"""Every small built-in network, and MobileNetV2 at 224x224 for the published-size ones (all
of those compile to one partition too; running each on lavapipe would take CI most of an
hour), on -t vgf, float (TOSA FP) and quantized (-q, TOSA INT): one partition holding every
op (only the quantize of the input and the dequantize of the output stay on CPU), a .vgf
payload whose inputs and outputs were checked against the partition, the converter's figures
in the report, and the program run through the VGF delegate on lavapipe: as the TOSA program
on the reference model (INT bit-exact, FP within 1e-5), and within 1e-4 of torch (FP)."""

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.lowering.quantized_support import INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON
from etarm.models import load_model
from etarm.models.registry import builtin_names
from etarm.pte import delegate_payloads
from etarm.testing.vgf_runs import assert_same_outputs, run_vgf_and_tosa


@pytest.mark.parametrize("quantize", [False, True], ids=["FP", "INT"])
@pytest.mark.parametrize("name", [*builtin_names(full_size=False), "mobilenet_v2"])
def test_network_is_one_vgf_partition(name, quantize):
    model, inputs = load_model(name)
    result = compile_model(model, inputs, "vgf", quantize=quantize)
    report = result.report
    assert [e for e in report["cpu_ops"] if e["reason"] not in (INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON)] == []
    (partition,) = report["partitions"]
    (payload,) = delegate_payloads(result.pte)
    assert payload.backend_id == "VgfBackend" and payload.data[:4] == b"VGF1"
    vgf = partition["vgf"]
    assert vgf["vgf_bytes"] == len(payload.data) == partition["payload_bytes"]
    assert [s["type"] for s in vgf["segments"]] == ["graph"]
    assert 0 < vgf["converter_seconds"] < 5
    integer = {"int8"} if quantize else set()
    assert {e["dtype"] for e in partition["inputs"]} - {"float32", "int64"} <= integer
    _, got, want = run_vgf_and_tosa(model, inputs, "INT" if quantize else "FP", vgf=result)
    assert_same_outputs("INT" if quantize else "FP", got, want)
    if not quantize:
        with torch.no_grad():
            expected = model(*inputs)
        for a, b in zip(got, expected if isinstance(expected, (tuple, list)) else (expected,)):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-4, atol=1e-4)
