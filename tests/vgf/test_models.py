"""Every built-in network on -t vgf, float (TOSA FP) and quantized (-q, TOSA INT): one
partition holding every op (only the quantize of the input and the dequantize of the output
stay on CPU), a .vgf payload whose inputs and outputs were checked against the partition,
and the converter's figures in the report."""

import pytest

from etarm.compiler import compile_model
from etarm.lowering.quantized_support import INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON
from etarm.models import load_model
from etarm.models.registry import builtin_names
from etarm.pte import delegate_payloads


@pytest.mark.parametrize("quantize", [False, True], ids=["FP", "INT"])
@pytest.mark.parametrize("name", builtin_names())
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
