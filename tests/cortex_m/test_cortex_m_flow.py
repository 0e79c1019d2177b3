"""The Cortex-M compile flow: which ops become cortex_m:: kernels, the .pte's operators, the
report's reasons, -q required, and the cortex_m ops' eager semantics against the PT2E model."""

from __future__ import annotations

import pathlib

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.models import load_model
from etarm.pte import cpu_operators
from etarm.targets import family_of

ADD_MUL = pathlib.Path(__file__).parent / "models" / "add_mul.py"


def _add():
    return load_model("add")


def test_add_becomes_the_cmsis_nn_kernel():
    model, inputs = _add()
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    assert cpu_operators(result.pte) == [
        "cortex_m::cpu_variant.out",  # the CPU record, first
        "quantized_decomposed::quantize_per_tensor.out",
        "cortex_m::quantized_add.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    ]
    reasons = {entry["op"]: entry["reason"] for entry in result.report["cpu_ops"]}
    assert reasons["cortex_m.quantized_add.default"] == "cortex_m kernel (CMSIS-NN)"
    assert result.report["partitions"] == []


class _AddFlip(torch.nn.Module):
    def forward(self, x, y):
        return (x + y).flip(-1)


def test_ops_without_a_kernel_stay_portable_with_a_reason():
    result = compile_model(_AddFlip().eval(), (torch.randn(2, 8), torch.randn(8)), "cortex-m4", quantize=True)
    ops = cpu_operators(result.pte)
    assert "cortex_m::quantized_add.out" in ops and "aten::flip.out" in ops
    reasons = {entry["op"]: entry["reason"] for entry in result.report["cpu_ops"]}
    assert reasons["aten.flip.default"] == "portable kernel: no cortex_m kernel for this op yet"


def test_float_add_is_left_with_its_reason():
    model, inputs = _add()
    exported = torch.export.export(model, inputs)
    edge = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    program = CortexMPassManager(edge.exported_program()).transform()
    adds = [n for n in program.graph.nodes if n.op == "call_function" and "add" in str(n.target)]
    assert len(adds) == 1 and "not a dequantized int8 tensor" in adds[0].meta["cortex_m_reason"]


def test_quantization_is_required():
    model, inputs = _add()
    with pytest.raises(EtarmError, match="runs integer models only: add -q"):
        compile_model(model, inputs, "cortex-m55")


def test_every_cortex_m_name_is_the_family():
    for name in ("cortex-m0", "cortex-m0plus", "cortex-m33", "Cortex-M55", "cortex-m85"):
        assert family_of(name).name == "Cortex-M"
    family = family_of("cortex-m7")
    assert isinstance(family.default_quantizer(family.compile_spec("cortex-m7", {}), {}), CortexMQuantizer)


@pytest.mark.parametrize("scale", [0.5, 0.123, 2.0**-31, 0.999999])
def test_multiplier_and_shift(scale):
    multiplier, shift = multiplier_and_shift(scale)
    assert 0 < multiplier < 2**31 and -31 <= shift <= 0
    assert multiplier * 2.0 ** (shift - 31) == pytest.approx(scale, rel=2**-30)


@pytest.mark.parametrize("scale", [1.0, 3.0, 0.0, float("nan")])
def test_scales_the_kernels_cannot_apply(scale):
    with pytest.raises(EtarmError):
        multiplier_and_shift(scale)


def test_eager_cortex_m_ops_are_within_one_step_of_the_pt2e_model():
    """The rewritten program run in Python (the cortex_m ops' eager integer semantics)."""
    model, inputs = load_model(str(ADD_MUL))
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    expected = quantized(*inputs)
    edge = to_edge_transform_and_lower(
        torch.export.export(quantized, inputs), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    program = CortexMPassManager(edge.exported_program()).transform()
    assert any("quantized_add" in str(n.target) for n in program.graph.nodes)
    got = program.module()(*inputs)
    step = float(torch.diff(expected.unique()).min())  # the output's quantization step
    torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)
