"""cortex_m.quantized_softmax from the compiler's side: a softmax over the last dim becomes one cortex_m op
between the input's and the output's int8 tensors (no dequantize/quantize chain), its precomputed TFLite-style
parameters, the reasons for what stays portable, and its eager integer semantics against the PT2E model."""

from __future__ import annotations

import torch

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.ops.quantized_softmax_int16 import exp2_table
from etarm.cortex_m.passes.quantized_softmax_as_cmsis_nn import int16_softmax_parameters, softmax_parameters
from etarm.op_names import op_name
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
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
        "softmax over dim 1 of a rank-3 tensor: the kernels run over the last dim"
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


_SOFTMAX_INT16 = "cortex_m.quantized_softmax_int16.default"


def _a16w8_edge(model, inputs):
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())
    quantized = quantize_model(model, inputs, quantizer)
    return quantized, edge_program(quantized, inputs)


def test_int16_softmax_is_the_projects_kernel_with_its_table_within_one_step():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 10) * 4,)
    quantized, program = _a16w8_edge(_Softmax(-1).eval(), inputs)
    (node,) = calls(program, "aten._softmax.default")
    out = qparams_of(next(iter(node.users)))
    assert abs(float(out.scale) * 32767 - 1) < 1e-6 and int(out.zero_point) == 0  # a float32 scale
    input_scale = float(qparams_of(node.args[0]).scale)
    program = CortexMPassManager(program).transform()
    (softmax,) = calls(program, _SOFTMAX_INT16)
    assert not calls(program, "aten._softmax.default") and softmax.meta["val"].dtype == torch.int16
    table, multiplier, shift = softmax.args[1:]
    assert (multiplier, shift) == int16_softmax_parameters(input_scale)
    assert abs(multiplier * 2.0 ** (shift - 31) / (input_scale * 1.4426950408889634 * 2**16) - 1) < 2**-30
    constant = program.state_dict[program.graph_signature.inputs_to_parameters[table.name]]
    assert torch.equal(constant, exp2_table()) and constant.dtype == torch.int32 and constant.shape == (257,)
    torch.testing.assert_close(program.module()(*inputs), quantized(*inputs), atol=1.01 / 32767, rtol=0)


def _int16_softmax(values, scale):
    x = torch.tensor(values, dtype=torch.int16)
    return torch.ops.cortex_m.quantized_softmax_int16(x, exp2_table(), *int16_softmax_parameters(scale))


def test_int16_softmax_dominant_entry_and_sums_just_below_powers_of_two():
    # The two cases the snapshot's arm_softmax_s16 got wrong: 32768 (wrapping) for a dominant entry, and about
    # twice the outputs when the sum of exps lies just below a power of two (here 2**31, 2**32, 2**33 in Q30).
    assert _int16_softmax([[32767, -32767], [100, 0]], 1.0).tolist() == [[32767, 0], [32767, 0]]
    for row in ([0, -1], [0, -1, -1, -1], [0] + [-1] * 7):
        for scale in (1e-5, 1e-4):
            got = _int16_softmax([row], scale).double()
            exact = torch.softmax(torch.tensor([row], dtype=torch.float64) * scale, -1) * 32767
            assert (got - exact).abs().max() <= 1.0


def test_int16_softmax_over_random_rows_is_within_one_step_of_the_exact_softmax():
    torch.manual_seed(1)
    for scale, bound in ((1e-4, 32767), (1e-3, 32767), (0.01, 3000), (0.1, 300)):
        x = torch.randint(-bound, bound + 1, (20, 33), dtype=torch.int16)
        got = torch.ops.cortex_m.quantized_softmax_int16(x, exp2_table(), *int16_softmax_parameters(scale))
        exact = torch.softmax(x.double() * scale, -1) * 32767
        assert (got.double() - exact).abs().max() <= 1.0


def test_int16_softmax_over_another_dim_or_scale_stays_portable_with_its_reason():
    inputs = (torch.randn(2, 3, 10),)
    _, program = _a16w8_edge(_Softmax(1).eval(), inputs)
    program = CortexMPassManager(program).transform()
    (softmax,) = calls(program, "aten._softmax.default")
    assert softmax.meta["cortex_m_reason"] == "softmax over dim 1 of a rank-3 tensor: the kernels run over the last dim"
    assert isinstance(int16_softmax_parameters(20000.0), str)
