"""QuantizedCatsAndViewsOnIntegers: concats and a view whose inputs and output share their quantization (the
quantizer's choice) run on the int8 tensors, no dequantize/quantize around them, equal to the PT2E model."""

from __future__ import annotations

import torch

from etarm.compiler import quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.testing.edge_programs import calls, edge_program
from etarm.tosa_ir.quant_params import is_dequantize


class _Moves(torch.nn.Module):
    """Two convs concatenated and flattened, and a concat of the input with a conv + relu."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.b = torch.nn.Conv2d(3, 2, 1)
        self.c = torch.nn.Conv2d(3, 2, 1)

    def forward(self, x):
        joined = torch.cat([self.a(x), self.b(x)], dim=1).flatten(1)
        return joined, torch.cat([x, torch.relu(self.c(x))], dim=1)


def test_shared_parameter_cats_and_views_run_on_int8():
    torch.manual_seed(6)
    model, inputs = _Moves().eval(), (torch.randn(1, 3, 4, 4),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    cats = calls(program, "aten.cat.default")
    assert len(cats) == 2 and not [t for c in cats for t in c.args[0] if is_dequantize(t)]
    assert [t.meta["val"].dtype for c in cats for t in c.args[0]] == [torch.int8] * 4
    (view,) = calls(program, "aten.view_copy.default")
    assert view.args[0] is cats[0] and view.meta["val"].dtype == torch.int8
    assert len(calls(program, "quantized_decomposed.dequantize_per_tensor.default")) == 2  # the two outputs
    got, expected = program.module()(*inputs), quantized(*inputs)
    assert torch.equal(got[0], expected[0])  # values moved, not recomputed
    step = float(torch.diff(expected[1].unique()).min())
    torch.testing.assert_close(got[1], expected[1], atol=step * 1.01, rtol=0)


class _Upsampled(torch.nn.Module):
    """A conv's result upsampled twice (scale factor, output size), nearest."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return torch.nn.functional.interpolate(y, scale_factor=2, mode="nearest"), torch.nn.functional.interpolate(
            y, size=(7, 3), mode="nearest"
        )


def test_nearest_upsamples_move_int8_values():
    torch.manual_seed(7)
    model, inputs = _Upsampled().eval(), (torch.randn(1, 3, 5, 4),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    upsamples = calls(program, "aten.upsample_nearest2d.vec")
    assert len(upsamples) == 2 and all(
        u.meta["val"].dtype == torch.int8 and not is_dequantize(u.args[0]) for u in upsamples
    )
    assert [tuple(u.meta["val"].shape) for u in upsamples] == [(1, 4, 10, 8), (1, 4, 7, 3)]
    assert len(calls(program, "quantized_decomposed.dequantize_per_tensor.default")) == 2  # the two outputs
    # torch has no int8 upsample on the CPU to run this program eagerly: the runner tests of `unet`
    # (tests/cortex_m/BUILD.bazel NETWORKS) check its values against the PT2E model on the host and in QEMU.
