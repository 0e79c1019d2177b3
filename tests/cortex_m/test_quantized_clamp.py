"""cortex_m.quantized_clamp from the compiler's side: the activations the quantizer leaves alone between their own
dequantize and quantize (after a mean, a concat, a permute) become one cortex_m op each, requantizing into their output's
parameters with the activation's bounds as the clamp; fused ones stay the clamp of their op; the eager integer
semantics against the PT2E model."""

from __future__ import annotations

import torch

from etarm.compiler import quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

_CLAMP = "cortex_m.quantized_clamp.default"


class _Alone(torch.nn.Module):
    """relu after a conv (fused) and after a mean; hardtanh after a concat; clamp (min only) after a permute."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        pooled = torch.relu(y.mean(dim=(2, 3), keepdim=True))
        joined = torch.nn.functional.hardtanh(torch.cat([x, y], dim=1), -0.5, 0.75)
        return pooled, joined, torch.clamp(x.permute(0, 2, 3, 1), min=-0.25)


def test_activations_left_alone_become_requantizing_clamps():
    torch.manual_seed(4)
    model, inputs = _Alone().eval(), (torch.randn(1, 3, 6, 6),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    assert not [n for n in calls(program) if str(n.target).split(".")[-2] in ("relu", "hardtanh", "clamp")]
    (conv,) = calls(program, "cortex_m.quantized_conv2d.default")
    assert conv.args[-3] == conv.args[-4]  # the first relu: the conv's clamp from its zero point
    clamps = calls(program, _CLAMP)
    assert len(clamps) == 2  # the relu after the mean is dropped: the mean's output steps start at its 0.0
    for clamp in clamps:
        x_zp, multiplier, shift, out_zp, lo, hi = clamp.args[1:]
        (dequantize,) = clamp.users
        out = qparams_of(dequantize)
        assert out_zp == out.zero_point and 2**30 <= multiplier < 2**31 and -31 <= shift <= 30
        assert -128 <= lo <= hi <= 127
    # Each activation's bounds in its output's steps (hardtanh(-0.5, 0.75), clamp(min=-0.25)), in graph order.
    for clamp, (low, high) in zip(clamps, [(-0.5, 0.75), (-0.25, None)]):
        out = qparams_of(next(iter(clamp.users)))
        step = int(out.quantize(torch.tensor([low]))[0])
        assert clamp.args[-2:] == (step, 127 if high is None else int(out.quantize(torch.tensor([high]))[0]))
    (mean,) = calls(program, "cortex_m.quantized_mean_hw.default")
    (keepdim,) = mean.users  # its view to [N, C, 1, 1] is the model's output: no relu after it
    assert mean.args[4] == -128 and is_dequantize(next(iter(keepdim.users)))
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        step = float(torch.diff(expected.unique()).min())  # the output's quantization step
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_int16_activations_left_alone_become_int16_clamps_within_one_step():
    torch.manual_seed(4)
    model, inputs = _Alone().eval(), (torch.randn(1, 3, 6, 6),)
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())
    quantized = quantize_model(model, inputs, quantizer)
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    assert not [n for n in calls(program) if str(n.target).split(".")[-2] in ("relu", "hardtanh", "clamp")]
    clamps = calls(program, _CLAMP)
    assert clamps and all(c.meta["val"].dtype == torch.int16 for c in clamps)
    for clamp in clamps:
        x_zp, multiplier, shift, out_zp, lo, hi = clamp.args[1:]
        assert (x_zp, out_zp) == (0, 0) and -32767 <= lo <= hi <= 32767 and 2**30 <= multiplier < 2**31
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        step = float(torch.diff(expected.unique()).min())
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


class _Residual(torch.nn.Module):
    """relu fused into a residual add, relu6 into a product (the quantizer fuses both: no quantize between)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x) + x)
        return y, torch.nn.functional.relu6(y * x)


def test_activations_fused_into_adds_and_muls_follow_their_cortex_m_ops():
    torch.manual_seed(7)
    model, inputs = _Residual().eval(), (torch.randn(1, 4, 5, 5),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    assert not [n for n in calls(program) if str(n.target).split(".")[-2] in ("add", "mul", "relu", "hardtanh")]
    (add,) = calls(program, "cortex_m.quantized_add.default")
    (mul,) = calls(program, "cortex_m.quantized_mul.default")
    # The activations' output parameters quantize the add and the product; their observers saw exactly the
    # activations' ranges, so the bounds are the int8 ends and no clamp is left to run.
    assert mul.args[0] is add and not calls(program, _CLAMP)
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        step = float(torch.diff(expected.unique()).min())
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)
