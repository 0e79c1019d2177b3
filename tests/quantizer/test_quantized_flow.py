"""compile_model(..., quantize=True) and the CLI for TOSA INT targets: target checks,
calibration data, partition boundaries and reasons, requantization."""

import json
import os

import pytest
import torch

from etarm.cli import main
from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.lowering.quantized_support import INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON
from etarm.models import load_model
from etarm.quantization.pt2e_flow import calibration_batches
from etarm.quantizer import TOSAQuantizer, get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close


def _pair(scale=1.0):
    torch.manual_seed(0)
    return (torch.randn(2, 8) * scale, torch.randn(2, 8) * scale)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"])
def test_int_targets_require_quantize(target):
    with pytest.raises(EtarmError, match="add -q"):
        compile_model(Fn(torch.add), _pair(), target)


def test_quantize_needs_an_int_profile():
    with pytest.raises(EtarmError, match="no INT profile"):
        compile_model(Fn(torch.add), _pair(), "TOSA-1.0+FP", quantize=True)


def test_calibration_data_sources(tmp_path):
    inputs = _pair()
    single = tmp_path / "one.pt"
    torch.save(inputs, single)
    assert len(calibration_batches(str(single), inputs)) == 1
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(3):
        torch.save(tuple(t * i for t in inputs), folder / f"batch{i}.pt")
    (folder / "notes.txt").write_text("ignored")
    batches = calibration_batches(folder, inputs)
    assert len(batches) == 3 and torch.equal(batches[2][0], inputs[0] * 2)
    assert calibration_batches(None, inputs) == [inputs]
    assert len(calibration_batches([inputs, list(inputs)], inputs)) == 2


def test_random_calibration_set_is_drawn_like_the_example_inputs():
    features = torch.randn(2, 64, generator=torch.Generator().manual_seed(1)) * 3 + 5
    ids = torch.tensor([[2, 9, 4, 7]])
    mask = torch.tensor([True, False, True])
    batches = calibration_batches("random:40", (features, ids, mask, 0.5))
    assert len(batches) == 40 and len(calibration_batches("random", (features,))) == 32
    drawn = torch.stack([b[0] for b in batches])
    assert drawn.shape[1:] == features.shape and drawn.dtype == features.dtype
    assert abs(float(drawn.mean()) - float(features.mean())) < 0.3
    assert abs(float(drawn.std()) - float(features.std())) < 0.3
    all_ids = torch.cat([b[1] for b in batches])
    assert all_ids.dtype == torch.int64 and int(all_ids.min()) == 2 and int(all_ids.max()) == 9
    assert {bool(v) for b in batches for v in b[2]} == {True, False} and all(b[3] == 0.5 for b in batches)
    # Seeded: every compile calibrates with the same set.
    again = calibration_batches("random:40", (features, ids, mask, 0.5))
    assert all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in zip(batches, again))


def test_random_calibration_set_calibrates_a_compile():
    model, inputs = load_model("mlp")
    result = compile_model(model, inputs, "TOSA-1.0+INT", quantize=True, calibration_data="random:8")
    assert len(result.report["partitions"]) == 1


def test_calibration_data_errors(tmp_path):
    inputs = _pair()
    with pytest.raises(EtarmError, match="does not exist"):
        calibration_batches(str(tmp_path / "missing.pt"), inputs)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EtarmError, match="no .pt files"):
        calibration_batches(str(empty), inputs)
    torch.save(inputs[:1], tmp_path / "short.pt")
    with pytest.raises(EtarmError, match="holds 1 input"):
        calibration_batches(str(tmp_path / "short.pt"), inputs)
    torch.save({"x": inputs[0]}, tmp_path / "dict.pt")
    with pytest.raises(EtarmError, match="must hold a tuple of inputs, not dict"):
        calibration_batches(str(tmp_path / "dict.pt"), inputs)
    (tmp_path / "junk.pt").write_bytes(b"not a pickle")
    with pytest.raises(EtarmError, match="not a readable"):
        calibration_batches(str(tmp_path / "junk.pt"), inputs)
    for bad in ("random:0", "random:x", "random:-3"):
        with pytest.raises(EtarmError, match="must be a positive integer"):
            calibration_batches(bad, inputs)


def test_calibration_data_sets_the_ranges(tmp_path):
    """Calibrating on data 10x wider than the example inputs gives ~10x larger scales."""
    inputs = _pair()
    torch.save(tuple(t * 10 for t in inputs), tmp_path / "wide.pt")
    narrow = compile_model(Fn(torch.add), inputs, "TOSA-1.0+INT", quantize=True)
    wide = compile_model(Fn(torch.add), inputs, "TOSA-1.0+INT", quantize=True, calibration_data=str(tmp_path / "wide.pt"))
    ratio = wide.report["partitions"][0]["inputs"][0]["scale"] / narrow.report["partitions"][0]["inputs"][0]["scale"]
    assert 5 < ratio < 20


def test_cli_compiles_int_with_calibration_data(tmp_path, capsys):
    torch.manual_seed(1)
    batch = (torch.randn(1, 8, 16, 16) * 3, torch.randn(1, 8, 16, 16))
    torch.save(batch, tmp_path / "calibration.pt")
    out, report = tmp_path / "add.pte", tmp_path / "report.json"
    argv = ["compile", "-m", "add", "-t", "TOSA-1.0+INT", "-q", "--calibration_data", str(tmp_path / "calibration.pt")]
    assert main(argv + ["-o", str(out), "--report", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["quantized"] and os.path.getsize(out) == data["pte_bytes"]
    (partition,) = data["partitions"]
    assert [i["dtype"] for i in partition["inputs"]] == ["int8", "int8"]
    assert partition["inputs"][0]["scale"] > 2 * partition["inputs"][1]["scale"]  # input 0 calibrated 3x wider
    assert {op["reason"] for op in data["cpu_ops"]} == {INPUT_QUANTIZE_REASON, OUTPUT_DEQUANTIZE_REASON}


def test_cli_int_target_without_q_is_a_clear_error(tmp_path, capsys):
    assert main(["compile", "-m", "add", "-t", "TOSA-1.0+INT", "-o", str(tmp_path / "x.pte")]) == 2
    assert "add -q" in capsys.readouterr().err


class Tail(torch.nn.Module):
    def forward(self, x, y):
        return x * y


class HeadTail(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tail = Tail()

    def forward(self, x, y):
        return self.tail(torch.relu(x + y), y)


def test_float_ops_stay_on_cpu_with_a_reason():
    quantizer = TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config()).set_module_type(Tail, None)
    report = compile_model(HeadTail(), _pair(), "TOSA-1.0+INT", quantize=True, quantizer=quantizer).report
    reasons = {op["op"]: op["reason"] for op in report["cpu_ops"]}
    assert "is not quantized" in reasons["aten.mul.Tensor"]
    (partition,) = report["partitions"]
    assert "aten.add.Tensor" in partition["aten_ops"] and partition["outputs"][0]["dtype"] == "int8"


def test_int16_needs_the_extension():
    quantizer = TOSAQuantizer(None).set_global(get_symmetric_a16w8_quantization_config())
    report = compile_model(Fn(torch.add), _pair(), "TOSA-1.0+INT", quantize=True, quantizer=quantizer).report
    assert not report["partitions"]
    reasons = {op["op"]: op["reason"] for op in report["cpu_ops"]}
    assert "int16 extension" in reasons["aten.add.Tensor"]


def test_fp_only_visitors_are_rejected_for_int():
    """prod has no integer lowering (TOSA's REDUCE_PRODUCT is float-only)."""
    report = compile_model(Fn(lambda x: torch.prod(x, 0)), (torch.randn(4, 3),), "TOSA-1.0+INT", quantize=True).report
    reasons = {op["op"]: op["reason"] for op in report["cpu_ops"]}
    assert reasons["aten.prod.dim_int"] == "aten.prod.dim_int is not lowered for TOSA-1.0+INT"


def test_cat_requantizes_inside_the_partition():
    """cat's inputs share the first one's parameters, here sigmoid's fixed ones: the
    product y * 4 keeps its own and is requantized (DQ -> Q, a RESCALE) to them."""
    run = assert_quantized_close(Fn(lambda x, y: torch.cat([torch.sigmoid(x), y * 4], 1)), _pair())
    partition = run.result.report["partitions"][0]
    assert "aten.cat.default" in partition["aten_ops"] and partition["tosa_ops"][-2:] == ["RESCALE", "CONCAT"]
    assert partition["outputs"][0]["scale"] == 1 / 256


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x, y):
        return torch.relu(self.fc(x)) + y


def test_ops_without_int_lowering_stay_on_cpu_with_their_fused_activation():
    """Per-channel weights and a fused relu: whatever the linear layer becomes at the edge,
    a part without INT lowering keeps the relu fused to it on CPU; the add is delegated."""
    report = compile_model(LinearRelu(), _pair(), "TOSA-1.0+INT", quantize=True).report
    assert all(op["reason"] for op in report["cpu_ops"])
    delegated = {op for p in report["partitions"] for op in p["aten_ops"]}
    assert "aten.add.Tensor" in delegated
    on_cpu = {op["op"]: op["reason"] for op in report["cpu_ops"]}
    if "aten.relu.default" in on_cpu:
        assert "stays on CPU" in on_cpu["aten.relu.default"]
