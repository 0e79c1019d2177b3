"""Ethos-U support decisions and failure handling through the real flow.

What an NPU family cannot run stays on CPU with its reason; what slips past the
partitioner is stopped before Vela (TOSA-level checks) or reported with Vela's reason
and the ATen node it concerns.
"""

import numpy as np
import pytest
import torch
import tosa_serializer as ts
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.ethosu import EthosUCompileSpec, EthosUPartitioner, EthosUQuantizer, operator_support
from etarm.ethosu import backend as ethosu_backend
from etarm.models import load_model
from etarm.npu_model import run_payload
from etarm.quantization.pt2e_flow import quantize_program
from etarm.quantizer import get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config
from etarm.testing.npu_model_reference import graph_payload
from etarm.testing.tosa_graphs import graph_input, int16_graph
from etarm.tosa.reference_model import run_tosa

BOUNDARY_OPS = {"quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.default"}


class StridedConv(torch.nn.Module):
    """A stride-4 padded convolution (depthwise with ``groups=4``) and a 1x1 one."""

    def __init__(self, groups: int = 1):
        super().__init__()
        self.strided = torch.nn.Conv2d(4, 4, 3, stride=4, padding=1, groups=groups)
        self.pointwise = torch.nn.Conv2d(4, 8, 1)

    def forward(self, x):
        return self.pointwise(torch.relu(self.strided(x)))


class Upsampler(torch.nn.Module):
    """A bilinear 2x upsampling (no Ethos-U55 runs it) between two 1x1 convolutions."""

    def __init__(self):
        super().__init__()
        self.before, self.after = torch.nn.Conv2d(4, 4, 1), torch.nn.Conv2d(4, 8, 1)

    def forward(self, x):
        return self.after(torch.nn.functional.interpolate(self.before(x), scale_factor=2, mode="bilinear"))


def _inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 4, 17, 17),)


def test_unsupported_op_stays_on_cpu_with_its_reason():
    model = Upsampler().eval()
    u55 = compile_model(model, _inputs(), "ethos-u55-128", quantize=True).report
    reasons = {op["op"]: op["reason"] for op in u55["cpu_ops"]}
    assert reasons["aten.upsample_bilinear2d.vec"] == (
        "ethos-u55-128: bilinear resize: Vela 5.2.0 compiles no TOSA RESIZE BILINEAR for Ethos-U55/U65"
    )
    assert len(u55["partitions"]) == 2  # the convolutions still run on the NPU
    assert all(partition["aten_ops"][0] == "aten.convolution.default" for partition in u55["partitions"])
    u85 = compile_model(model, _inputs(), "ethos-u85-256", quantize=True).report
    assert {op["op"] for op in u85["cpu_ops"]} <= BOUNDARY_OPS


def test_strided_depthwise_runs_on_ethos_u55_at_stride_1():
    """U55 runs depthwise strides up to 3: the backend computes stride 1 and subsamples."""
    report = compile_model(StridedConv(groups=4).eval(), _inputs(), "ethos-u55-128", quantize=True).report
    assert {op["op"] for op in report["cpu_ops"]} <= BOUNDARY_OPS
    (partition,) = report["partitions"]
    assert partition["npu_rewrites"] == {"subsample_strided_convolutions": 1}


def test_padding_rewrite_puts_strided_convolution_on_ethos_u55():
    """U55 runs stride 4 only unpadded: the backend moves the padding into a PAD."""
    report = compile_model(StridedConv().eval(), _inputs(), "ethos-u55-128", quantize=True).report
    assert {op["op"] for op in report["cpu_ops"]} <= BOUNDARY_OPS
    (partition,) = report["partitions"]
    assert partition["npu_rewrites"] == {"pad_strided_convolutions": 1}
    assert {"PAD", "CONCAT"} & set(partition["tosa_ops"])  # PAD, or CONCAT for a zero point of 0


def _lower(model, inputs, spec, quantizer, checks=None):
    """The public API as a user calls it: EthosUQuantizer + EthosUPartitioner."""
    exported = torch.export.export(model, inputs, strict=False)
    quantized = quantize_program(exported, quantizer, [inputs])
    partitioner = EthosUPartitioner(spec, additional_checks=checks)
    edge = to_edge_transform_and_lower(
        torch.export.export(quantized, inputs, strict=False),
        partitioner=[partitioner],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    return edge, partitioner


class Int16Sigmoid(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(x + x)


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_int16_table_ops_run_on_every_npu_family(target):
    """EthosUQuantizer with int16 activations: sigmoid is an interpolated int16 TABLE, which
    Vela runs on U55 (its 16-bit look-up table) and U85."""
    spec = EthosUCompileSpec(target)
    quantizer = EthosUQuantizer(spec).set_global(get_symmetric_a16w8_quantization_config())
    _, partitioner = _lower(Int16Sigmoid(), (torch.randn(1, 4, 8, 8),), spec, quantizer)
    rejected = {op: reason for op, reason in partitioner.rejections.values()}
    assert "aten.sigmoid.default" not in rejected


class Int16Exp(torch.nn.Module):
    def forward(self, x):
        return torch.exp(x + x)


def test_int16_lookups_a_table_cannot_follow_stay_off_u55():
    """int16 exp needs the exact 65536-entry GATHER (the interpolated TABLE strays): U85 only."""
    rejected = {}
    for target in ("ethos-u55-128", "ethos-u85-256"):
        spec = EthosUCompileSpec(target)
        quantizer = EthosUQuantizer(spec).set_global(get_symmetric_a16w8_quantization_config())
        _, partitioner = _lower(Int16Exp(), (torch.randn(1, 4, 8, 8),), spec, quantizer)
        rejected[target] = {op: reason for op, reason in partitioner.rejections.values()}
    assert rejected["ethos-u55-128"]["aten.exp.default"] == (
        "ethos-u55-128: aten.exp.default on int16 values needs an exact 65536-entry lookup (GATHER: its "
        "interpolated table strays too far), which Ethos-U55/U65 do not run"
    )
    assert "aten.exp.default" not in rejected["ethos-u85-256"]


def test_user_checks_add_to_the_npu_checks():
    spec = EthosUCompileSpec("ethos-u85-256")
    quantizer = EthosUQuantizer("ethos-u85-256").set_global(get_symmetric_quantization_config())
    keep_add = lambda node, _spec: "kept on CPU by the user" if node.name.startswith("aten_add") else None  # noqa: E731
    _, partitioner = _lower(Int16Sigmoid(), (torch.randn(1, 4, 8, 8),), spec, quantizer, [keep_add])
    assert ("aten.add.Tensor", "kept on CPU by the user") in partitioner.rejections.values()


def test_vela_failure_names_the_op(monkeypatch):
    """A rule gap that reaches Vela: the error carries Vela's reason and the ATen node."""
    monkeypatch.setitem(operator_support._RULES, "aten.upsample_bilinear2d.vec", lambda node, target: None)
    monkeypatch.setattr(ethosu_backend, "check_graph", lambda graph, family: [])
    with pytest.raises(EtarmError) as failure:
        compile_model(Upsampler().eval(), _inputs(), "ethos-u55-128", quantize=True)
    message = str(failure.value)
    assert message.startswith("Vela ethos-u55-128 (Ethos_U55_High_End_Embedded, Shared_Sram) failed: ")
    assert "Non-passthrough operation (Resize) could not run on NPU" in message
    assert "the Resize comes from: aten.upsample_bilinear2d.vec (node 'aten_upsample_bilinear2d_vec')" in message


def test_tosa_checks_stop_what_the_partitioner_missed(monkeypatch):
    monkeypatch.setitem(operator_support._RULES, "aten.upsample_bilinear2d.vec", lambda node, target: None)
    with pytest.raises(EtarmError) as failure:
        compile_model(Upsampler().eval(), _inputs(), "ethos-u55-128", quantize=True)
    message = str(failure.value)
    assert message.startswith(
        "ethos-u55-128 cannot run this partition:\n  TOSA RESIZE from aten.upsample_bilinear2d.vec "
        "(node 'aten_upsample_bilinear2d_vec'): bilinear resize"
    )


def test_quantization_is_required():
    model, inputs = load_model("mlp")
    with pytest.raises(EtarmError, match="target 'ethos-u55-128' runs integer models only: add -q"):
        compile_model(model, inputs, "ethos-u55-128")


class IntegerProduct(torch.nn.Module):
    """An int32 product of unbounded integer data, and an int32 sum beside it."""

    def forward(self, x):
        return x * torch.arange(3, 11, dtype=torch.int32), x + 1


def test_the_npu_saturates_an_int32_product_tosa_wraps(tmp_path):
    """TOSA 1.0 MUL with shift 0 keeps the low 32 bits of an overflowing int32 product; Vela's
    program for it saturates on the NPU model: the reason int32 products stay off the NPU."""
    graph = int16_graph()
    x = graph_input(graph, (1, 8), ts.DType.INT32)
    graph.mark_output(graph.binary(ts.Op.MUL, x, graph.const(np.full((1, 8), 3), ts.DType.INT32)))
    values = np.array([[2**30, -(2**30), 7, -7, 2**31 - 1, -(2**31), 715827882, 715827883]], dtype=np.int32)
    (got,) = run_payload(graph_payload(graph, "ethos-u55-128", str(tmp_path)), "ethos-u55-128", [values])
    (want,) = run_tosa(graph.serialize(), [values])
    np.testing.assert_array_equal(np.asarray(want).reshape(-1), (values.astype(np.int64) * 3).astype(np.int32).reshape(-1))
    np.testing.assert_array_equal(got.reshape(-1), np.clip(values.astype(np.int64) * 3, -(2**31), 2**31 - 1).reshape(-1))


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_int32_products_stay_on_cpu(target):
    inputs = (torch.arange(-32, 32, dtype=torch.int32).reshape(8, 8) * 1000,)
    report = compile_model(IntegerProduct().eval(), inputs, target, quantize=True).report
    reasons = {op["op"]: op["reason"] for op in report["cpu_ops"]}
    assert reasons["aten.mul.Tensor"] == (
        f"{target}: aten.mul.Tensor of int32 values: TOSA wraps an overflowing int32 product, the NPU saturates it"
    )
    delegated = {op for partition in report["partitions"] for op in partition["aten_ops"]}
    assert "aten.add.Tensor" in delegated and "aten.mul.Tensor" not in delegated  # the sum stays on the NPU
