"""cortex_m.quantized_mul from the compiler's side: which muls become it, the multiplier and shift it gets,
the reasons for what stays portable, and its eager integer semantics against the PT2E model."""

from __future__ import annotations

import torch
from executorch.exir import EdgeCompileConfig, to_edge

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.pte import cpu_operators
from etarm.tosa_ir.quant_params import qparams_of
from etarm.testing.edge_programs import calls, edge_program

_MUL = "cortex_m.quantized_mul.default"


class _Mul(torch.nn.Module):
    def forward(self, x, y):
        return x * y


class _MulByNumber(torch.nn.Module):
    def forward(self, x):
        return x * -1.5


_INPUTS = (torch.randn(2, 3, 8), torch.randn(8))


def _rewritten(model, inputs):
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    before = edge_program(quantized, inputs)
    quantizes = {n.args[0].name: qparams_of(n) for n in before.graph.nodes if "quantize_per_tensor" in str(n.target)}
    return quantized, quantizes, CortexMPassManager(before).transform()


def test_broadcast_mul_is_the_cmsis_nn_kernel_between_the_quantizes():
    result = compile_model(_Mul().eval(), _INPUTS, "cortex-m55", quantize=True)
    assert cpu_operators(result.pte) == [
        "cortex_m::cpu_variant.out",  # the CPU record, first
        "quantized_decomposed::quantize_per_tensor.out",
        "cortex_m::quantized_mul.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    ]
    reasons = {entry["op"]: entry["reason"] for entry in result.report["cpu_ops"]}
    assert reasons[_MUL] == "cortex_m kernel (CMSIS-NN)"


def test_scale_is_the_product_of_the_input_scales_over_the_output_scale():
    quantized, quantizes, program = _rewritten(_Mul().eval(), _INPUTS)
    (mul,) = calls(program, _MUL)
    x, x_zp, y, y_zp, out_zp, multiplier, shift = mul.args
    a, b = quantizes["x"], quantizes["y"]
    out = next(q for name, q in quantizes.items() if "mul" in name)
    assert (x_zp, y_zp, out_zp) == (a.zero_point, b.zero_point, out.zero_point)
    assert (multiplier, shift) == multiplier_and_shift(float(a.scale) * float(b.scale) / float(out.scale))
    expected = quantized(*_INPUTS)
    step = float(torch.diff(expected.unique()).min())
    torch.testing.assert_close(program.module()(*_INPUTS), expected, atol=step * 1.01, rtol=0)


def test_mul_by_a_number_stays_portable_with_its_reason():
    # The quantizer leaves a product with a Python number in float: no int8 operands to match.
    _, _, program = _rewritten(_MulByNumber().eval(), _INPUTS[:1])
    assert not calls(program, _MUL)
    (mul,) = calls(program, "aten.mul.Tensor")
    assert mul.meta["cortex_m_reason"] == "an operand is not a dequantized int8 tensor (float or a Python number)"


def test_float_mul_stays_portable_with_its_reason():
    edge = to_edge(
        torch.export.export(_Mul().eval(), _INPUTS), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    program = CortexMPassManager(edge.exported_program()).transform()
    (mul,) = calls(program, "aten.mul.Tensor")
    assert "not a dequantized int8 tensor" in mul.meta["cortex_m_reason"]
