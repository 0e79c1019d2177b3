"""cortex_m.quantized_softmax from the compiler's side: a softmax over the last dim becomes one cortex_m op
between the input's and the output's int8 tensors (no dequantize/quantize chain), its precomputed TFLite-style
parameters, the reasons for what stays portable, and its eager integer semantics against the PT2E model."""

from __future__ import annotations

import torch

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.passes.quantized_softmax_as_cmsis_nn import softmax_parameters
from etarm.op_names import op_name
from etarm.pte import cpu_operators
from etarm.tosa_ir.quant_params import is_quantize, qparams_of
from etarm.testing.edge_programs import calls, edge_program

_SOFTMAX = "cortex_m.quantized_softmax.default"


class _Softmax(torch.nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.softmax(x * 3.0, dim=self.dim)


_INPUTS = (torch.randn(2, 3, 10),)


def _edge(model, inputs):
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    return quantized, edge_program(quantized, inputs)


def test_softmax_is_one_cortex_m_op_between_int8_tensors():
    result = compile_model(_Softmax(-1).eval(), _INPUTS, "cortex-m55", quantize=True)
    ops = cpu_operators(result.pte)
    assert "cortex_m::quantized_softmax.out" in ops and not [op for op in ops if "softmax" in op and "aten" in op]
    quantized, program = _edge(_Softmax(-1).eval(), _INPUTS)
    program = CortexMPassManager(program).transform()
    (softmax,) = calls(program, _SOFTMAX)
    # It reads the input's int8 tensor (its quantize) and its only user is the output's dequantize.
    assert is_quantize(softmax.args[0])
    assert [op_name(user.target) for user in softmax.users] == ["quantized_decomposed.dequantize_per_tensor.default"]


def test_quantizer_gives_the_fixed_output_and_parameters_are_precomputed():
    quantized, program = _edge(_Softmax(-1).eval(), _INPUTS)
    (node,) = calls(program, "aten._softmax.default")
    out = qparams_of(next(iter(node.users)))
    assert (float(out.scale), int(out.zero_point)) == (1 / 256, -128)
    input_scale = float(qparams_of(node.args[0]).scale)
    program = CortexMPassManager(program).transform()
    (softmax,) = calls(program, _SOFTMAX)
    multiplier, left_shift, diff_min = softmax.args[1:]
    assert (multiplier, left_shift, diff_min) == softmax_parameters(input_scale)
    assert abs(multiplier * 2.0 ** (left_shift - 31) / (input_scale * 2**26) - 1) < 2**-30
    assert 2**30 <= multiplier < 2**31 and diff_min < 0
    expected = quantized(*_INPUTS)
    torch.testing.assert_close(program.module()(*_INPUTS), expected, atol=1.01 / 256, rtol=0)


def test_softmax_not_over_the_last_dim_stays_portable_with_its_reason():
    _, program = _edge(_Softmax(1).eval(), _INPUTS)
    program = CortexMPassManager(program).transform()
    assert not calls(program, _SOFTMAX)
    (softmax,) = calls(program, "aten._softmax.default")
    assert softmax.meta["cortex_m_reason"] == (
        "softmax over dim 1 of a rank-3 tensor: arm_softmax_s8 runs over the last dim"
    )


def test_other_output_quantization_stays_portable_with_its_reason():
    _, program = _edge(_Softmax(-1).eval(), _INPUTS)
    (softmax,) = calls(program, "aten._softmax.default")
    quantize = next(iter(softmax.users))
    assert is_quantize(quantize)
    quantize.args = (quantize.args[0], 1 / 255, -128, *quantize.args[3:])
    program = CortexMPassManager(program).transform()
    assert not calls(program, _SOFTMAX)
    assert "arm_softmax_s8 writes steps of 1/256 from -128" in softmax.meta["cortex_m_reason"]


def test_parameters_follow_tflite_and_refuse_unusable_scales():
    multiplier, left_shift, diff_min = softmax_parameters(0.1)
    assert (multiplier, left_shift) == (1717986918, 23)  # 0.1 * 2**26 = 0.8 * 2**23
    assert diff_min == -(31 * 2**26 // 2**23)
    assert isinstance(softmax_parameters(2**-28), str) and isinstance(softmax_parameters(16.0), str)
