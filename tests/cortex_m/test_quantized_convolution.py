"""cortex_m.quantized_conv2d and quantized_depthwise_conv2d from the compiler's side: which convolutions become them
(per-channel and per-tensor weights, activations fused as their clamp), their constants (weights in CMSIS-NN's
layouts, per-channel multipliers/shifts), the layout permutes (only at the model's boundaries), the reasons for what
stays portable, and their eager integer semantics against the PT2E model."""

from __future__ import annotations

import pathlib

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.passes.record_scratch_sizes import RecordScratchSizes
from etarm.models import load_model
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import get_symmetric_quantization_config
from etarm.testing.edge_programs import calls, edge_program

SMALL_CNN = pathlib.Path(__file__).parent / "models" / "small_cnn.py"
_CONV = "cortex_m.quantized_conv2d.default"
_DEPTHWISE = "cortex_m.quantized_depthwise_conv2d.default"
_MAX_POOL = "cortex_m.quantized_max_pool2d.default"
_AVG_POOL = "cortex_m.quantized_avg_pool2d.default"
_GROUPED = "cortex_m.quantized_grouped_conv2d.default"
_TRANSPOSE = "cortex_m.transpose.default"  # the layout permutes, int8 copies


def _rewritten(model, inputs, quantizer=None):
    quantized = quantize_model(model, inputs, quantizer or CortexMQuantizer())
    return quantized, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _constant(program, node):
    value = constant_reader(program)(node)
    assert value is not None, f"{node.name} is not a constant of the program"
    return value


def _within_one_step(got, expected):
    step = float(torch.diff(expected.unique()).min())  # the output's quantization step
    torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_small_cnn_runs_every_convolution_on_cmsis_nn_and_transposes_only_at_its_boundaries():
    model, inputs = load_model(str(SMALL_CNN))
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    assert cpu_operators(result.pte) == [
        "cortex_m::cpu_variant.out",  # the CPU record, first
        "quantized_decomposed::quantize_per_tensor.out",
        "cortex_m::transpose.out",
        "cortex_m::quantized_conv2d.out",
        "cortex_m::quantized_depthwise_conv2d.out",
        "cortex_m::quantized_max_pool2d.out",
        "cortex_m::quantized_avg_pool2d.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    ]
    cpu_ops = result.report["cpu_ops"]
    portable = ("aten.convolution", "aten.relu", "aten.hardtanh", "aten.max_pool", "aten.avg_pool")
    assert not [e for e in cpu_ops if any(name in e["op"] for name in portable)]
    lowered = [e["reason"] for e in cpu_ops if e["op"] in (_CONV, _DEPTHWISE, _MAX_POOL, _AVG_POOL)]
    assert lowered == ["cortex_m kernel (CMSIS-NN)"] * 5
    transposes = [e["reason"] for e in cpu_ops if e["op"] == _TRANSPOSE]
    assert transposes == ["cortex_m kernel (the project's: CMSIS-NN has none)"] * 2  # the input's and the output's


@pytest.mark.parametrize("per_channel", [True, False])
def test_constants_are_in_cmsis_nn_layouts(per_channel):
    model, inputs = load_model(str(SMALL_CNN))
    quantizer = CortexMQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=per_channel))
    quantized, program = _rewritten(model, inputs, quantizer)
    (conv, pointwise), (depthwise,) = calls(program, _CONV), calls(program, _DEPTHWISE)
    # The first conv's weights: OHWI, the same int8 values torch's OIHW held.
    weight = _constant(program, conv.args[2])
    assert weight.dtype == torch.int8 and tuple(weight.shape) == (8, 3, 3, 3)
    scale = (model.conv.weight.abs().amax(dim=(1, 2, 3)) if per_channel else model.conv.weight.abs().max()) / 127
    expected = torch.round(model.conv.weight / scale.reshape(-1, 1, 1, 1)).clamp(-127, 127).permute(0, 2, 3, 1)
    assert (weight.to(torch.float32) - expected).abs().max() <= 1
    # Depthwise: [1, KH, KW, C_out], multiplier 2.
    assert tuple(_constant(program, depthwise.args[2]).shape) == (1, 3, 3, 16)
    assert depthwise.args[9] == 2
    for node, channels in ((conv, 8), (depthwise, 16), (pointwise, 6)):
        bias, m, s = (_constant(program, a) for a in node.args[3:6])
        assert bias.dtype == m.dtype == s.dtype == torch.int32
        assert bias.numel() == m.numel() == s.numel() == channels  # one per output channel, also per tensor
        assert bool(((m >= 2**30) & (s <= 0) & (s >= -31)).all())
    # relu and relu6 are the clamps of the ops before them (their output ranges start at the zero point).
    assert conv.args[-3] == conv.args[-4] and depthwise.args[-3] == depthwise.args[-4]
    assert tuple(pointwise.args[-3:-1]) == (-128, 127)
    # Scratch bytes for cortex-m55's MVE path: the 3x3 over 3 channels keeps four 27-tap columns padded to 32; the
    # depthwise with multiplier 2 (arm_depthwise_conv_s8) and the 1x1 need none.
    assert [conv.args[-1], depthwise.args[-1], pointwise.args[-1]] == [128, 0, 0]
    # NHWC from op to op: the only permutes are the input's and the output's.
    permutes = calls(program, _TRANSPOSE)
    assert [list(p.args[1]) for p in permutes] == [[0, 2, 3, 1], [0, 3, 1, 2]]
    (pool,) = calls(program, _MAX_POOL)
    assert conv.args[0] is permutes[0] and depthwise.args[0] is conv and pool.args[0] is depthwise
    assert pointwise.args[0] is pool and tuple(pool.args[1:]) == ([2, 2], [2, 2], [0, 0], -128, 127)
    (average,) = calls(program, _AVG_POOL)  # the quantizer shares its input's parameters with it
    assert average.args[0] is pointwise and permutes[1].args[0] is average
    assert average.args[-1] == 0  # MVE's average pool needs no scratch
    _within_one_step(program.module()(*inputs), quantized(*inputs))
    # For a DSP core (-t cortex-m4): the 3x3 conv's two int16 columns of 28 taps, one int32 per channel of the pool.
    RecordScratchSizes("DSP").transform(program.graph_module, program)
    assert [conv.args[-1], depthwise.args[-1], pointwise.args[-1], average.args[-1]] == [112, 0, 0, 24]


class _Branches(torch.nn.Module):
    """A conv whose result also feeds a float op, a grouped (not depthwise) conv, a grouped transposed conv, a
    dilated max pool and a padded average pool counting its padding (torch's default): the grouped conv is the only
    other one lowered."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.grouped = torch.nn.Conv2d(4, 8, 3, padding=1, groups=2)
        self.transposed = torch.nn.ConvTranspose2d(4, 4, 2, stride=2, groups=2)

    def forward(self, x):
        y = self.conv(x)
        dilated = torch.nn.functional.max_pool2d(y, 2, dilation=2)
        padded = torch.nn.functional.avg_pool2d(y, 3, stride=1, padding=1)
        return self.grouped(y), torch.sigmoid(y), self.transposed(y), dilated, padded


def test_what_stays_portable_has_its_reason():
    torch.manual_seed(1)
    model, inputs = _Branches().eval(), (torch.randn(1, 4, 6, 6),)
    quantized, program = _rewritten(model, inputs)
    assert len(calls(program, _CONV)) == 1  # conv: its quantized result feeds both the grouped conv and sigmoid
    assert len(calls(program, _GROUPED)) == 1
    reasons = {n.name: n.meta.get("cortex_m_reason", "") for n in calls(program) if "convolution" in str(n.target)}
    assert list(reasons.values()) == [
        "a grouped transposed convolution has no cortex_m kernel (arm_transpose_conv_s8: groups 1)"
    ]
    (pool,) = [n for n in calls(program) if "max_pool2d" in str(n.target)]
    assert pool.meta["cortex_m_reason"] == "a dilated or ceil-mode max pool has no cortex_m kernel"
    (average,) = [n for n in calls(program) if "avg_pool2d" in str(n.target)]
    assert "counting its padding" in average.meta["cortex_m_reason"]
    # The conv's NCHW result stays for the float ops beside it: its permute back is kept; the grouped conv reads the
    # conv's NHWC result and gives the model an NCHW output.
    assert [list(p.args[1]) for p in calls(program, _TRANSPOSE)] == [[0, 2, 3, 1], [0, 3, 1, 2], [0, 3, 1, 2]]
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        _within_one_step(got, expected)


class _Grouped(torch.nn.Module):
    """Grouped convolutions (neither 1 nor depthwise): two groups strided with a fused relu, four 1x1 groups."""

    def __init__(self):
        super().__init__()
        self.grouped = torch.nn.Conv2d(8, 6, 3, stride=2, padding=1, groups=2)
        self.pointwise = torch.nn.Conv2d(6, 12, 1, groups=3, bias=False)

    def forward(self, x):
        return self.pointwise(torch.relu(self.grouped(x)))


@pytest.mark.parametrize("per_channel", [True, False])
def test_grouped_convolutions_become_one_op_each_with_ohwi_weights_per_group(per_channel):
    torch.manual_seed(2)
    model, inputs = _Grouped().eval(), (torch.randn(2, 8, 9, 9),)
    quantizer = CortexMQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=per_channel))
    quantized, program = _rewritten(model, inputs, quantizer)
    assert not [n for n in calls(program) if "convolution" in str(n.target) or "relu" in str(n.target)]
    grouped, pointwise = calls(program, _GROUPED)
    assert pointwise.args[0] is grouped  # NHWC between them
    for node, shape, groups in ((grouped, (6, 3, 3, 4), 2), (pointwise, (12, 1, 1, 2), 3)):
        weight = _constant(program, node.args[2])
        assert weight.dtype == torch.int8 and tuple(weight.shape) == shape
        assert node.args[9] == groups
        assert all(_constant(program, a).numel() == shape[0] for a in node.args[3:6])
    assert grouped.args[-3] == grouped.args[-4]  # relu: its clamp starts at the zero point
    _within_one_step(program.module()(*inputs), quantized(*inputs))


def test_float_convolution_is_left_with_its_reason():
    model, inputs = load_model(str(SMALL_CNN))
    program = to_edge_transform_and_lower(
        torch.export.export(model, inputs), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    ).exported_program()
    program = CortexMPassManager(program).transform()
    convs = [n for n in calls(program) if "convolution" in str(n.target)]
    assert len(convs) == 3
    assert all("not a dequantized int8 tensor" in n.meta["cortex_m_reason"] for n in convs)
    assert not calls(program, _TRANSPOSE) and not calls(program, "aten.permute_copy.default")
