"""cortex_m.pad from the compiler's side: a constant pad of quantized data becomes one cortex_m op (its value quantized
once, ahead of time), a 4-D one on the NHWC data of the conv after it (no permute between them), other ranks as they
are; a crop keeps its reason; the eager integer semantics equal the PT2E model's."""

from __future__ import annotations

import torch

from etarm.compiler import quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program
from etarm.tosa_ir.quant_params import qparams_of

_PAD = "cortex_m.pad.default"


class _Pads(torch.nn.Module):
    """ZeroPad2d (uneven) before a conv, a pad of a 3-D view by 0.5 and beyond the quantized range, a crop."""

    def __init__(self):
        super().__init__()
        self.pad = torch.nn.ZeroPad2d((1, 2, 0, 1))
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(self.pad(x))
        flat = x.flatten(2)
        return (
            y,
            torch.nn.functional.pad(flat, (2, 1), value=0.5),
            torch.nn.functional.pad(flat, (0, 0, 1, 0), value=1e3),
            torch.nn.functional.pad(x, (-1, 0)),
        )


def test_pads_become_cortex_m_ops_with_their_values_quantized():
    torch.manual_seed(5)
    model, inputs = _Pads().eval(), (torch.randn(1, 3, 5, 6),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    image, half, large = calls(program, _PAD)
    (conv,) = calls(program, "cortex_m.quantized_conv2d.default")
    assert conv.args[0] is image  # NHWC from the pad to the conv
    assert image.args[1:] == ([0, 0, 1, 0], [0, 1, 2, 0], conv.args[1])  # NHWC pads; 0.0 is the zero point
    out = qparams_of(next(iter(half.users)))
    assert half.args[1:] == ([0, 0, 2], [0, 0, 1], int(out.quantize(torch.tensor([0.5]))[0]))
    assert large.args[1:] == ([0, 1, 0], [0, 0, 0], 127)  # 1e3 saturates as PT2E's quantize does
    (crop,) = calls(program, "aten.constant_pad_nd.default")
    assert crop.meta["cortex_m_reason"] == "a negative pad (a crop) has no cortex_m kernel"
    (conv_out, *padded), (conv_expected, *padded_expected) = program.module()(*inputs), quantized(*inputs)
    step = float(torch.diff(conv_expected.unique()).min())  # the conv's output step (it rounds once, PT2E twice)
    torch.testing.assert_close(conv_out, conv_expected, atol=step * 1.01, rtol=0)
    for got, expected in zip(padded, padded_expected):  # the pads move values: equal to PT2E's
        torch.testing.assert_close(got, expected, atol=0, rtol=0)


def test_int16_pads_move_values_and_saturate_their_fill_symmetrically():
    torch.manual_seed(5)
    model, inputs = _Pads().eval(), (torch.randn(1, 3, 5, 6),)
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())
    quantized = quantize_model(model, inputs, quantizer)
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    image, half, large = calls(program, _PAD)
    assert all(node.meta["val"].dtype == torch.int16 for node in (image, half, large))
    assert image.args[1:] == ([0, 0, 1, 0], [0, 1, 2, 0], 0)  # 0.0 is int16's zero point
    assert large.args[1:] == ([0, 1, 0], [0, 0, 0], 32767)  # the symmetric range's end, as PT2E's quantize
    _, *padded = program.module()(*inputs)
    _, *padded_expected = quantized(*inputs)
    for got, expected in zip(padded, padded_expected):
        torch.testing.assert_close(got, expected, atol=0, rtol=0)
