"""cortex_m.quantized_linear from the compiler's side: which linears become it (per-tensor and per-channel
weights, activations fused as its clamp), the constants it gets, the reasons for what stays portable, and its
eager integer semantics against the PT2E model."""

from __future__ import annotations

import pathlib

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.models import load_model
from etarm.op_names import op_name
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.pte import cpu_operators
from etarm.targets import compile_spec_for, default_quantizer
from etarm.quantization.quantization_config import (
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.testing.edge_programs import edge_program

LINEAR_CLAMPS = pathlib.Path(__file__).parent / "models" / "linear_clamps.py"
_LINEAR = "cortex_m.quantized_linear.default"


def _rewritten(model, inputs, quantizer):
    quantized = quantize_model(model, inputs, quantizer)
    return quantized, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _linears(program):
    return [n for n in program.graph.nodes if n.op == "call_function" and op_name(n.target) == _LINEAR]


def _constant(program, node):
    value = constant_reader(program)(node)
    assert value is not None, f"{node.name} is not a constant of the program"
    return value


def _within_one_step(got, expected):
    step = float(torch.diff(expected.unique()).min())  # the output's quantization step
    torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_mlp_is_two_cmsis_nn_linears_with_the_relu_fused():
    model, inputs = load_model("mlp")
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    assert cpu_operators(result.pte) == [
        "cortex_m::cpu_variant.out",  # the CPU record, first
        "quantized_decomposed::quantize_per_tensor.out",
        "cortex_m::quantized_linear.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    ]
    reasons = [entry["reason"] for entry in result.report["cpu_ops"] if entry["op"] == _LINEAR]
    assert reasons == ["cortex_m kernel (CMSIS-NN)"] * 2
    assert not any("relu" in entry["op"] or "addmm" in entry["op"] for entry in result.report["cpu_ops"])


@pytest.mark.parametrize("per_channel", [True, False])
def test_constants_are_computed_ahead_of_time(per_channel):
    model, inputs = load_model("mlp")
    quantizer = CortexMQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=per_channel))
    quantized, program = _rewritten(model, inputs, quantizer)
    first, second = _linears(program)
    x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max = first.args
    w = _constant(program, weight)
    assert w.dtype == torch.int8 and tuple(w.shape) == (32, 16)
    assert _constant(program, bias).dtype == torch.int32
    torch.testing.assert_close(_constant(program, kernel_sum), w.to(torch.int32).sum(dim=1, dtype=torch.int32))
    m, s = _constant(program, multipliers), _constant(program, shifts)
    assert m.dtype == s.dtype == torch.int32 and m.numel() == s.numel() == (32 if per_channel else 1)
    assert bool(((m >= 2**30) & (s <= 0) & (s >= -31)).all())
    # fc1's relu is its clamp: nothing below the output's zero point; fc2 has none.
    assert (act_min, act_max) == (max(out_zp, -128), 127)
    assert tuple(second.args[-2:]) == (-128, 127)
    got = program.module()(*inputs)
    _within_one_step(got, quantized(*inputs))


def _output_scale(program) -> float:
    (output,) = [n for n in program.graph.nodes if n.op == "output"][0].args[0]
    return float(output.args[1])  # the dequantize of the model's result


@pytest.mark.parametrize("per_channel", [True, False])
def test_a16w8_linears_take_int16_with_int64_biases(per_channel):
    model, inputs = load_model("mlp")
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config(is_per_channel=per_channel))
    quantized, program = _rewritten(model, inputs, quantizer)
    linears = _linears(program)
    assert len(linears) == 2 and all(n.meta["val"].dtype == torch.int16 for n in linears)
    for node in linears:
        x, x_zp, weight, bias, kernel_sum, multipliers, shifts, out_zp, act_min, act_max = node.args
        assert x.meta["val"].dtype == torch.int16 and (x_zp, out_zp) == (0, 0)
        assert _constant(program, bias).dtype == torch.int64  # arm_fully_connected_s16's bias
        assert _constant(program, kernel_sum).numel() == 0
        assert _constant(program, multipliers).numel() == (node.meta["val"].shape[-1] if per_channel else 1)
    # fc1's relu clamps at zero; fc2 saturates at the symmetric int16 ends.
    assert tuple(linears[0].args[-2:]) == (0, 32767) and tuple(linears[1].args[-2:]) == (-32767, 32767)
    got, expected = program.module()(*inputs), quantized(*inputs)
    torch.testing.assert_close(got, expected, atol=_output_scale(program) * 1.01, rtol=0)


def test_a16w8_is_the_a16w8_option_and_int8_the_default():
    spec = compile_spec_for("cortex-m4")
    assert default_quantizer("cortex-m4", spec).global_config.output_activation.dtype == torch.int8
    a16w8 = default_quantizer("cortex-m4", spec, {"a16w8": True}).global_config
    assert a16w8.output_activation.dtype == torch.int16 and a16w8.weight.dtype == torch.int8
    model, inputs = load_model("mlp")
    result = compile_model(model, inputs, "cortex-m4", quantize=True, target_options={"a16w8": True})
    linears = [entry for entry in result.report["cpu_ops"] if entry["op"] == _LINEAR]
    assert [entry["reason"] for entry in linears] == ["cortex_m kernel (CMSIS-NN)"] * 2


def test_relu6_hardtanh_no_bias_and_rank_3_are_fused():
    model, inputs = load_model(str(LINEAR_CLAMPS))
    quantized, program = _rewritten(model, inputs, CortexMQuantizer())
    linears = _linears(program)
    assert len(linears) == 3
    left = [op_name(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert not [name for name in left if "hardtanh" in name or "relu" in name or "view" in name], left
    assert linears[1].args[3] is None  # fc2 has no bias
    # The fused activation's observer sets the output's range, so hardtanh(-0.75, 0.5) quantizes to the int8
    # ends (the kernel tests cover clamps inside the range); a clamp beyond them would be a wrong bound.
    out_zp, act_min, act_max = linears[1].args[-3:]
    assert (act_min, act_max) == (-128, 127) and out_zp > -128
    _within_one_step(program.module()(*inputs), quantized(*inputs))


def test_float_linear_is_left_with_its_reason():
    model, inputs = load_model("mlp")
    edge = to_edge(torch.export.export(model, inputs), compile_config=EdgeCompileConfig(_check_ir_validity=False))
    program = CortexMPassManager(edge.exported_program()).transform()
    matmuls = [n for n in program.graph.nodes if n.op == "call_function" and "addmm" in str(n.target)]
    assert len(matmuls) == 2
    assert all("not a dequantized int8 tensor" in n.meta["cortex_m_reason"] for n in matmuls)
