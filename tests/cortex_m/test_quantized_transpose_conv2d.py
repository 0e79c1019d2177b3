"""cortex_m.quantized_transpose_conv2d from the compiler's side: which transposed convolutions become it (int8 and
a16w8, per-channel and per-tensor weights, strides, paddings, output_padding, activations fused as its clamp), its
constants (weights in arm_transpose_conv_s8's [C_out, KH, KW, C_in], the scratch bytes per code path), the reasons for
what stays portable, and its eager integer semantics: bit for bit the TOSA lowering of the same quantized graph (int8),
within one output step of the PT2E model (int8 and int16)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.passes.record_scratch_sizes import RecordScratchSizes
from etarm.models import load_model
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import (
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.testing.edge_programs import calls, edge_program
from etarm.testing.quantized_reference import lower_and_run_quantized

DECODER = pathlib.Path(__file__).parent / "models" / "decoder.py"
_OP = "cortex_m.quantized_transpose_conv2d.default"
_REASON = "cortex_m_reason"


class _Transposed(torch.nn.Module):
    def __init__(self, activation=None, bias=True, **window):
        super().__init__()
        self.conv = torch.nn.ConvTranspose2d(4, 5, bias=bias, **window)
        self.activation = activation

    def forward(self, x):
        y = self.conv(x)
        return self.activation(y) if self.activation is not None else y


def _quantizer(a16w8: bool = False, per_channel: bool = True):
    if a16w8:
        return CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())
    return CortexMQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=per_channel))


def _rewritten(model, inputs, quantizer):
    quantized = quantize_model(model, inputs, quantizer)
    return quantized, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _constant(program, node):
    value = constant_reader(program)(node)
    assert value is not None, f"{node.name} is not a constant of the program"
    return value


def _steps(got, expected):
    """The largest difference in output steps (the output's quantization step)."""
    step = float(torch.diff(expected.unique()).min())
    return float((got - expected).abs().max()) / step


WINDOWS = {
    "stride1_padded": {"kernel_size": 3, "padding": 1},
    "stride2_output_padding": {"kernel_size": 3, "stride": 2, "padding": 1, "output_padding": 1},
    "stride2_kernel4": {"kernel_size": 4, "stride": 2, "padding": 1},
    "stride3_gaps": {"kernel_size": 2, "stride": 3, "output_padding": 2},
    "rectangular_padding_beyond_stride": {
        "kernel_size": (5, 3),
        "stride": (1, 2),
        "padding": (2, 1),
        "output_padding": (0, 1),
    },
    "pointwise_stride2": {"kernel_size": 1, "stride": 2, "output_padding": 1},
}


@pytest.mark.parametrize("window", WINDOWS.values(), ids=WINDOWS.keys())
def test_int8_windows_compute_what_the_tosa_lowering_computes(window):
    torch.manual_seed(3)
    model, inputs = _Transposed(**window).eval(), (torch.randn(2, 4, 5, 6),)
    quantized, program = _rewritten(model, inputs, _quantizer())
    assert len(calls(program, _OP)) == 1
    assert not [n for n in calls(program) if "convolution" in str(n.target)]
    got = program.module()(*inputs)
    # The same quantized graph lowered for TOSA-1.0+INT (TRANSPOSE_CONV2D + RESCALE) on the TOSA reference model.
    tosa = lower_and_run_quantized(model, inputs, quantizer=_quantizer())
    (want,) = tosa.dequantized
    assert got.shape == want.shape == quantized(*inputs).shape
    assert torch.equal(got, want), f"{int((got != want).sum())} of {got.numel()} values differ from TOSA"
    assert _steps(got, quantized(*inputs)) <= 1.01


@pytest.mark.parametrize("window", WINDOWS.values(), ids=WINDOWS.keys())
def test_a16w8_windows_are_int16_ops_within_one_step(window):
    torch.manual_seed(4)
    model, inputs = _Transposed(activation=torch.relu, **window).eval(), (torch.randn(1, 4, 5, 6),)
    quantized, program = _rewritten(model, inputs, _quantizer(a16w8=True))
    (op,) = calls(program, _OP)
    assert op.meta["val"].dtype == torch.int16
    bias = _constant(program, op.args[3])
    assert bias.dtype == torch.int64  # the int16 kernel's accumulator
    assert op.args[-1] == 0  # the project's int16 kernel needs no scratch
    assert tuple(op.args[-3:-1]) == (0, 32767)  # relu: the clamp from the zero point
    assert _steps(program.module()(*inputs), quantized(*inputs)) <= 1.01


@pytest.mark.parametrize("per_channel", [True, False])
def test_constants_and_scratch_sizes(per_channel):
    torch.manual_seed(5)
    model = _Transposed(activation=torch.nn.functional.relu6, bias=False, kernel_size=3, stride=2, padding=1)
    inputs = (torch.randn(1, 4, 5, 5),)
    quantized, program = _rewritten(model.eval(), inputs, _quantizer(per_channel=per_channel))
    (op,) = calls(program, _OP)
    _, _, weight, bias, multipliers, shifts, stride, padding, output_padding, out_zp, lo, _, scratch = op.args
    # torch's [C_in, C_out, KH, KW] weights as arm_transpose_conv_s8's [C_out, KH, KW, C_in], the same int8 values.
    w = _constant(program, weight)
    assert w.dtype == torch.int8 and tuple(w.shape) == (5, 3, 3, 4)
    float_weight = model.conv.weight
    scale = (float_weight.abs().amax(dim=(0, 2, 3)) if per_channel else float_weight.abs().max()) / 127
    expected = torch.round(float_weight / scale.reshape(1, -1, 1, 1)).clamp(-127, 127).permute(1, 2, 3, 0)
    assert (w.to(torch.float32) - expected).abs().max() <= 1
    b, m, s = (_constant(program, a) for a in (bias, multipliers, shifts))
    assert b.dtype == m.dtype == s.dtype == torch.int32 and not bool(b.any())  # no bias: zeros
    assert b.numel() == m.numel() == s.numel() == 5  # one per output channel, also per tensor
    assert bool(((m >= 2**30) & (s <= 0) & (s >= -31)).all())
    assert (list(stride), list(padding), list(output_padding)) == ([2, 2], [1, 1], [0, 0])
    assert lo == out_zp  # relu6 as the clamp (its upper bound is the output's range)
    assert not [n for n in calls(program) if "hardtanh" in str(n.target)]
    # arm_transpose_conv_s8's buffers, the same on every path: 9 taps x 25 pixels x 5 channels of int32 columns, then
    # the 9x9x5 int32 output image.
    assert scratch == 4 * 9 * 25 * 5 + 4 * 81 * 5
    RecordScratchSizes("DSP").transform(program.graph_module, program)
    assert op.args[-1] == scratch
    assert _steps(program.module()(*inputs), quantized(*inputs)) <= 1.01


class _Portable(torch.nn.Module):
    """Transposed convolutions the kernel does not take: grouped, dilated, 1-D, and one whose weights are an input."""

    def __init__(self):
        super().__init__()
        self.grouped = torch.nn.ConvTranspose2d(4, 4, 2, stride=2, groups=2)
        self.dilated = torch.nn.ConvTranspose2d(4, 4, 3, dilation=2)
        self.one_d = torch.nn.ConvTranspose1d(4, 4, 3, stride=2)

    def forward(self, x, weight):
        return (
            self.grouped(x),
            self.dilated(x),
            self.one_d(x.flatten(2)),
            torch.nn.functional.conv_transpose2d(x, weight, stride=2),
        )


def test_what_stays_portable_has_its_reason():
    torch.manual_seed(6)
    model, inputs = _Portable().eval(), (torch.randn(1, 4, 4, 4), torch.randn(4, 4, 2, 2))
    _, program = _rewritten(model, inputs, _quantizer())
    assert not calls(program, _OP)
    reasons = sorted(n.meta.get(_REASON, "") for n in calls(program) if "convolution" in str(n.target))
    assert reasons == sorted(
        [
            "a grouped transposed convolution has no cortex_m kernel (arm_transpose_conv_s8: groups 1)",
            "a dilated transposed convolution has no cortex_m kernel (arm_transpose_conv_s8: none)",
            "only 2-D transposed convolutions (4-D NCHW inputs) have a cortex_m kernel",
            "its weight is not a constant",
        ]
    ), reasons


def test_decoder_runs_every_convolution_on_cortex_m_kernels():
    model, inputs = load_model(str(DECODER))
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    assert cpu_operators(result.pte) == [
        "cortex_m::cpu_variant.out",
        "quantized_decomposed::quantize_per_tensor.out",
        "cortex_m::transpose.out",
        "cortex_m::quantized_conv2d.out",
        "cortex_m::quantized_transpose_conv2d.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    ]
    cpu_ops = result.report["cpu_ops"]
    assert [e["reason"] for e in cpu_ops if e["op"] == _OP] == ["cortex_m kernel (CMSIS-NN)"] * 2
    assert not [e for e in cpu_ops if "aten.convolution" in e["op"] or "aten.relu" in e["op"]]
    # NHWC from op to op: only the model's input and output are transposed.
    assert sum(e["op"] == "cortex_m.transpose.default" for e in cpu_ops) == 2


@pytest.mark.parametrize("a16w8", [False, True], ids=["a8w8", "a16w8"])
def test_decoder_eager_program_against_pt2e(a16w8):
    model, inputs = load_model(str(DECODER))
    quantized, program = _rewritten(model, inputs, _quantizer(a16w8=a16w8))
    ops = calls(program, _OP)
    assert len(ops) == 2 and all(op.meta["val"].dtype == (torch.int16 if a16w8 else torch.int8) for op in ops)
    got, want = program.module()(*inputs), quantized(*inputs)
    steps = np.round((got - want).abs().numpy() / float(torch.diff(want.unique()).min()))
    assert steps.max() <= 1, steps.max()


def test_the_report_names_the_projects_int16_kernel():
    model, inputs = load_model(str(DECODER))
    result = compile_model(model, inputs, "cortex-m55", quantize=True, target_options={"a16w8": True})
    reasons = [e["reason"] for e in result.report["cpu_ops"] if e["op"] == _OP]
    assert reasons == ["cortex_m kernel (the project's: CMSIS-NN has none)"] * 2
