"""cortex_m.quantized_mean_hw from the compiler's side: a mean over H and W (global average pooling,
adaptive_avg_pool2d to 1x1, keepdim or not) becomes one cortex_m op reading the NHWC result of the conv before it (no
permute between them), its output quantized unlike its input through one precomputed multiplier/shift, a view for
keepdim, the reasons for the means it does not run, and its eager integer semantics against the PT2E model."""

from __future__ import annotations

import pathlib

import torch

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.models import load_model
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program
from etarm.tosa_ir.quant_params import is_quantize, qparams_of

_MEAN = "cortex_m.quantized_mean_hw.default"
# The runtime-core differential tests' CNN (a grouped conv, global mean pooling): the Cortex-M benchmark's.
_CORE_SMALL_CNN = pathlib.Path(__file__).parents[2] / "runtime" / "core" / "test" / "models" / "small_cnn.py"


class _Means(torch.nn.Module):
    """A conv's result averaged over H, W three ways and over C (no kernel), and the input averaged over its flattened
    pixels (a mean over a sequence)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        pooled = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        kept = y.mean(dim=(-1, -2), keepdim=True)
        return pooled, y.mean(dim=(3, 2)), kept, y.mean(dim=1), x.flatten(2).mean(dim=2)


def _rewritten():
    torch.manual_seed(3)
    model, inputs = _Means().eval(), (torch.randn(2, 3, 7, 5),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    return quantized, inputs, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _quantize_after(node):
    """The first quantize or dequantize from ``node`` down its single users: it holds the parameters of its value."""
    while not is_quantize(node) and "dequantize" not in str(node.target):
        (node,) = node.users
    return node


def test_means_over_h_and_w_become_cortex_m_ops_on_the_convs_nhwc_result():
    quantized, inputs, program = _rewritten()
    (conv,) = calls(program, "cortex_m.quantized_conv2d.default")
    means = calls(program, _MEAN)
    # The input flattened to [N, C, H * W] and averaged over its last dim is a mean over a sequence (SequencesAsImages).
    assert len(means) == 4
    means = [m for m in means if m.args[0] is conv]
    assert len(means) == 3  # NHWC straight from the conv
    (back_to_nchw,) = [u for u in conv.users if u not in means]  # for the mean over C
    x = qparams_of(_quantize_after(back_to_nchw))  # the conv's output: the means' input
    for mean in means:
        x_zp, multiplier, shift, out_zp, lo, hi = mean.args[1:]
        out = qparams_of(_quantize_after(next(iter(mean.users))))
        assert (x_zp, out_zp, lo, hi) == (conv.args[-4], out.zero_point, -128, 127)
        assert x.scale != out.scale  # quantized unlike its input: the kernel rescales
        real = multiplier * 2.0 ** (shift - 31)
        assert abs(real / (x.scale / (7 * 5 * out.scale)) - 1) < 2**-29
        assert tuple(mean.meta["val"].shape) == (2, 6)
    views = [u for m in means for u in m.users if "view_copy" in str(u.target)]
    assert [tuple(v.args[1]) for v in views] == [(2, 6, 1, 1)] * 2  # keepdim (and the adaptive pool) view [N, C]
    reasons = sorted(n.meta.get("cortex_m_reason", "") for n in calls(program, "aten.mean.dim"))
    assert reasons == ["only the mean over H and W of a 4-D NCHW tensor has a cortex_m kernel"]
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        step = float(torch.diff(expected.unique()).min())  # the output's quantization step
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_int16_means_rescale_once_within_one_step():
    torch.manual_seed(3)
    model, inputs = _Means().eval(), (torch.randn(2, 3, 7, 5),)
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())
    quantized = quantize_model(model, inputs, quantizer)
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    means = calls(program, _MEAN)
    assert len(means) == 4 and all(m.meta["val"].dtype == torch.int16 for m in means)
    for mean in means:
        x_zp, multiplier, shift, out_zp, lo, hi = mean.args[1:]
        assert (x_zp, out_zp, lo, hi) == (0, 0, -32767, 32767) and 2**30 <= multiplier < 2**31
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        step = float(torch.diff(expected.unique()).min())
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_core_small_cnn_leaves_no_mean_convolution_or_relu_in_fp32():
    model, inputs = load_model(str(_CORE_SMALL_CNN))
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    ops = cpu_operators(result.pte)
    assert "cortex_m::quantized_mean_hw.out" in ops and "cortex_m::quantized_grouped_conv2d.out" in ops
    assert not [op for op in ops if op.split("::")[1].split(".")[0] in ("mean", "convolution", "relu")]
