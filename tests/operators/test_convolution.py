"""aten.convolution: 1-D/2-D/3-D, grouped, depthwise, transposed.

FP: tolerance 1e-4: the reference model and torch's CPU kernels sum the FP32 products of
each output in a different order (tens to hundreds of terms per output).

INT: PT2E-quantized through the real flow (per-channel int8 weights, int32 biases) and
compared with the convert_pt2e'd model in eager, in output steps (LSB):
- int8: exact integer accumulation, then one RESCALE with a 32-bit multiplier: 1 LSB.
- int16 activations x int8 weights (TOSA-1.0+INT+int16): the int48 accumulator can only
  be rescaled with a 16-bit multiplier (TOSA forbids scale32 on int48), whose relative
  error of up to 2**-15 moves values near full scale (32767 steps) by up to one more
  step: 2 LSB.

Chains of convolutions and the NCHW <-> NHWC layout: tests/operators/test_layout_cleanup.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "convolution" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from torchao.quantization.pt2e import PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from etarm.compiler import compile_model
from etarm.quantizer import TOSAQuantizer, get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.matmul_checks import seeded_randn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension

TOL = dict(atol=1e-4, rtol=1e-4)
INT16 = "TOSA-1.0+INT+int16"
INT16_LSB = 2


def per_tensor_quantizer():
    return TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config(is_per_channel=False))


# --- FP ---------------------------------------------------------------------------------------

# (in_channels, out_channels, kernel, stride, padding, dilation, groups, bias, input shape)
CONV2D = [
    (3, 4, 3, 1, 1, 1, 1, True, (2, 3, 7, 8)),
    (3, 5, (3, 2), (2, 1), (1, 0), 1, 1, False, (1, 3, 8, 9)),  # stride 2 over an even size: a cropped row
    (4, 6, 3, 2, 0, 2, 1, True, (2, 4, 11, 10)),  # dilated
    (4, 6, 5, 3, 2, 1, 2, True, (1, 4, 13, 12)),  # groups=2
    (6, 6, 3, 1, 1, 1, 6, True, (2, 6, 9, 7)),  # depthwise
    (4, 8, (1, 3), 2, (0, 1), (1, 2), 4, False, (1, 4, 6, 9)),  # depthwise, multiplier 2, dilated
    (6, 9, 1, 1, 0, 1, 3, True, (3, 6, 5, 5)),  # pointwise, groups=3
    (2, 3, 4, 4, 3, 1, 1, True, (1, 2, 5, 6)),  # padding shrinks to fit the stride
]


@pytest.mark.parametrize("cin,cout,kernel,stride,padding,dilation,groups,bias,shape", CONV2D)
def test_conv2d(cin, cout, kernel, stride, padding, dilation, groups, bias, shape):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(cin, cout, kernel, stride, padding, dilation, groups, bias)
    run = assert_close_to_torch(conv, (torch.randn(shape),), **TOL)
    # Constant weights are rearranged at compile time: only the input/output layout transposes remain.
    assert tosa_ops(run).count("TRANSPOSE") == 2


@pytest.mark.parametrize(
    "cin,cout,kernel,stride,padding,dilation,groups,shape",
    [(3, 4, 3, 1, 1, 1, 1, (2, 3, 10)), (4, 6, 4, 3, 2, 2, 2, (1, 4, 17)), (4, 4, 3, 2, 0, 1, 4, (2, 4, 8))],
)
def test_conv1d(cin, cout, kernel, stride, padding, dilation, groups, shape):
    torch.manual_seed(0)
    conv = torch.nn.Conv1d(cin, cout, kernel, stride, padding, dilation, groups)
    assert_close_to_torch(conv, (torch.randn(shape),), **TOL)


@pytest.mark.parametrize(
    "cin,cout,kernel,stride,padding,dilation,groups,shape",
    [(3, 4, 3, 1, 1, 1, 1, (2, 3, 5, 6, 7)), (4, 4, (2, 3, 1), (2, 1, 2), (1, 0, 0), (1, 2, 1), 2, (1, 4, 6, 7, 5))],
)
def test_conv3d(cin, cout, kernel, stride, padding, dilation, groups, shape):
    torch.manual_seed(0)
    conv = torch.nn.Conv3d(cin, cout, kernel, stride, padding, dilation, groups)
    run = assert_close_to_torch(conv, (torch.randn(shape),), **TOL)
    assert "CONV3D" in tosa_ops(run)


# (in_channels, out_channels, kernel, stride, padding, output_padding, dilation, groups, bias, input shape)
CONV_TRANSPOSE2D = [
    (4, 6, 3, 2, 1, 1, 1, 1, True, (2, 4, 5, 6)),
    (3, 2, (2, 3), (2, 1), 0, 0, 1, 1, False, (1, 3, 4, 5)),
    (4, 4, 3, 1, 1, 0, 2, 2, True, (1, 4, 5, 5)),  # dilated, grouped
    (2, 3, 2, 3, 2, (2, 1), 1, 1, True, (1, 2, 4, 3)),  # padding >= kernel: cropped after
]


@pytest.mark.parametrize("cin,cout,kernel,stride,padding,output_padding,dilation,groups,bias,shape", CONV_TRANSPOSE2D)
def test_conv_transpose2d(cin, cout, kernel, stride, padding, output_padding, dilation, groups, bias, shape):
    torch.manual_seed(0)
    conv = torch.nn.ConvTranspose2d(cin, cout, kernel, stride, padding, output_padding, groups, bias, dilation)
    run = assert_close_to_torch(conv, (torch.randn(shape),), **TOL)
    assert "TRANSPOSE_CONV2D" in tosa_ops(run)


def test_conv_transpose1d():
    torch.manual_seed(0)
    conv = torch.nn.ConvTranspose1d(3, 5, 4, stride=2, padding=1, output_padding=1)
    assert_close_to_torch(conv, (torch.randn(2, 3, 7),), **TOL)


def test_weight_as_input_is_transposed_at_runtime():
    torch.manual_seed(0)
    fn = Fn(lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2))
    run = assert_close_to_torch(fn, (torch.randn(1, 4, 7, 7), torch.randn(6, 2, 3, 3)), **TOL)
    assert tosa_ops(run).count("TRANSPOSE") == 4  # input, output and one per group weight


def test_dilated_transposed_weight_as_input():
    torch.manual_seed(0)
    fn = Fn(lambda x, w: F.conv_transpose2d(x, w, stride=2, dilation=2))
    assert_close_to_torch(fn, (torch.randn(1, 3, 4, 5), torch.randn(3, 2, 3, 2)), **TOL)


def test_float16():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1).half()
    # float16 outputs: torch and TOSA round the FP32 accumulators to fp16 at different points.
    assert_close_to_torch(conv, (torch.randn(1, 3, 6, 7).half(),), atol=1e-2, rtol=1e-2)


def test_conv_transpose3d_stays_on_cpu():
    assert cpu_ops(lambda x: F.conv_transpose3d(x, torch.ones(2, 2, 2, 2, 2)), (torch.randn(1, 2, 3, 3, 3),)) == [
        ("aten.convolution.default", "3-D transposed convolution (transposed=True) has no TOSA operator")
    ]


# --- INT ----------------------------------------------------------------------------------------

# (module, input shape, expected TOSA ops or None)
CONVOLUTIONS = {
    "conv2d": (
        lambda: torch.nn.Conv2d(3, 4, 3, padding=1),
        (2, 3, 7, 8),
        ["TRANSPOSE", "CONV2D", "RESCALE", "TRANSPOSE"],
    ),
    "conv2d_strided_dilated_no_bias": (
        lambda: torch.nn.Conv2d(3, 5, (3, 2), (2, 1), (1, 0), 2, bias=False),
        (1, 3, 9, 8),
        None,
    ),
    "conv2d_groups": (lambda: torch.nn.Conv2d(4, 6, 5, 3, 2, groups=2), (1, 4, 13, 12), None),
    "depthwise_multiplier2_dilated": (
        lambda: torch.nn.Conv2d(4, 8, (1, 3), 2, (0, 1), (1, 2), groups=4),
        (1, 4, 6, 9),
        ["TRANSPOSE", "SLICE", "DEPTHWISE_CONV2D", "RESCALE", "TRANSPOSE"],  # SLICE: a row no window reads
    ),
    "conv1d_groups": (lambda: torch.nn.Conv1d(4, 6, 4, 3, 2, 2, groups=2), (2, 4, 17), None),
    "conv3d": (lambda: torch.nn.Conv3d(3, 4, (2, 3, 1), (2, 1, 2), (1, 0, 0)), (1, 3, 5, 6, 7), None),
    "conv_transpose2d_output_padding": (
        lambda: torch.nn.ConvTranspose2d(4, 6, 3, 2, 1, 1),
        (2, 4, 5, 6),
        ["TRANSPOSE", "TRANSPOSE_CONV2D", "RESCALE", "TRANSPOSE"],
    ),
    # Grouped transposed weights [in, out/groups, ...] repeat the out axis: per-tensor weights.
    "conv_transpose2d_dilated_groups": (
        lambda: torch.nn.ConvTranspose2d(4, 4, 3, 1, 1, 0, 2, True, 2),
        (1, 4, 5, 5),
        None,
    ),
    "conv_transpose2d_cropped": (lambda: torch.nn.ConvTranspose2d(2, 3, 2, 3, 2, (2, 1)), (1, 2, 4, 3), None),
    "conv_transpose1d": (lambda: torch.nn.ConvTranspose1d(3, 5, 4, 2, 1, 1), (2, 3, 7), None),
}


@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_int8_convolution(name):
    make, shape, expected_ops = CONVOLUTIONS[name]
    torch.manual_seed(1)
    run = assert_quantized_close(make().eval(), seeded_randn(shape))
    ops = tosa_ops(run)
    if expected_ops is not None:
        assert ops == expected_ops
    # Weights are int8 constants inside the partition: nothing is dequantized or cast.
    assert not {"CAST", "MUL", "ADD"} & set(ops)


def test_int8_conv_relu_fused_costs_nothing():
    """conv -> relu has no quantize/dequantize between: the conv's RESCALE writes relu's
    [0, max] range directly, so its saturation at the lowest step is the relu."""
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
    run = assert_quantized_close(model, seeded_randn((1, 3, 6, 6)))
    assert tosa_ops(run) == ["TRANSPOSE", "CONV2D", "RESCALE", "TRANSPOSE"]
    assert run.result.report["partitions"][0]["outputs"][0]["zero_point"] == -128


def test_per_tensor_weights():
    torch.manual_seed(4)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2), torch.nn.Flatten(), torch.nn.Linear(36, 5)).eval()
    run = assert_quantized_close(model, seeded_randn((2, 3, 7, 7)), quantizer=per_tensor_quantizer())
    assert tosa_ops(run).count("CONV2D") == 2  # the linear layer is a 1x1 CONV2D too


def test_runtime_weight_is_rearranged_in_the_graph():
    """A weight that is a model input (per-tensor) is transposed to OHWI by the graph."""
    fn = Fn(lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2))
    run = assert_quantized_close(fn, seeded_randn((1, 4, 7, 7), (6, 2, 3, 3)), quantizer=per_tensor_quantizer())
    assert tosa_ops(run).count("CONV2D") == 2 and tosa_ops(run).count("TRANSPOSE") == 4


A16W8 = {
    "conv2d_relu": (lambda: torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU()), (1, 3, 6, 7)),
    "conv2d_groups": (lambda: torch.nn.Conv2d(4, 6, 3, 2, groups=2), (1, 4, 9, 8)),
    "depthwise": (lambda: torch.nn.Conv2d(4, 4, 3, groups=4, bias=False), (1, 4, 6, 6)),
    "conv_transpose2d": (lambda: torch.nn.ConvTranspose2d(3, 4, 3, 2, 1, 1), (1, 3, 4, 5)),
    "conv1d": (lambda: torch.nn.Conv1d(3, 5, 3), (2, 3, 9)),
}


@pytest.mark.parametrize("name", list(A16W8))
def test_a16w8_convolution(name):
    make, shape = A16W8[name]
    torch.manual_seed(9)
    run = assert_quantized_close(make().eval(), seeded_randn(shape), target=INT16, max_lsb=INT16_LSB)
    partition = run.result.report["partitions"][0]
    assert partition["inputs"][0]["dtype"] == "int16" and partition["outputs"][0]["zero_point"] == 0


def _cpu_reason(fn, inputs, target="TOSA-1.0+INT", quantizer=None) -> str:
    report = compile_model(Fn(fn), inputs, target, quantize=True, quantizer=quantizer).report
    (reason,) = [entry["reason"] for entry in report["cpu_ops"] if entry["op"] == "aten.convolution.default"]
    return reason


def test_runtime_bias_stays_on_cpu():
    fn = lambda x, w, b: F.conv2d(x, w, b)  # noqa: E731
    reason = _cpu_reason(fn, seeded_randn((1, 3, 5, 5), (4, 3, 3, 3), (4,)), quantizer=per_tensor_quantizer())
    assert reason == "bias is computed at run time; quantized lowering needs it constant"


def test_int16_weight_stays_on_cpu():
    weight = QuantizationSpec(
        dtype=torch.int16,
        quant_min=-32767,
        quant_max=32767,
        qscheme=torch.per_channel_symmetric,
        ch_axis=0,
        observer_or_fake_quant_ctr=PerChannelMinMaxObserver.with_args(
            dtype=torch.int16, quant_min=-32767, quant_max=32767, qscheme=torch.per_channel_symmetric, ch_axis=0
        ),
    )
    config = dataclasses.replace(get_symmetric_a16w8_quantization_config(), weight=weight)
    quantizer = TOSAQuantizer(INT16).set_global(config)
    conv = torch.nn.Conv2d(3, 4, 3).eval()
    reason = _cpu_reason(conv, seeded_randn((1, 3, 5, 5)), INT16, quantizer)
    assert reason == "weight is quantized to int16; TOSA takes int8 here"


def test_int8_conv_transpose3d_stays_on_cpu():
    conv = torch.nn.ConvTranspose3d(2, 2, 2).eval()
    reason = _cpu_reason(conv, seeded_randn((1, 2, 3, 3, 3)))
    assert reason == "3-D transposed convolution (transposed=True) has no TOSA operator"


# --- the FP extensions' floats (bf16: FP32 accumulator; fp8: FP16 accumulator and result, cast back) ---


class _ConvWithBias(torch.nn.Module):
    def __init__(self, dtype, groups=1, transposed=False):
        super().__init__()
        gen = torch.Generator().manual_seed(7)
        shape = (4, 4 // groups, 3, 3)
        self.weight = torch.nn.Parameter((torch.randn(shape, generator=gen) / 3).to(dtype), requires_grad=False)
        self.bias = torch.nn.Parameter((torch.randn(4, generator=gen) / 4).to(dtype), requires_grad=False)
        self.groups, self.transposed = groups, transposed

    def forward(self, x):
        if self.transposed:
            return F.conv_transpose2d(x, self.weight, self.bias, stride=2, groups=self.groups)
        return F.conv2d(x, self.weight, self.bias, padding=1, groups=self.groups)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("groups, transposed", [(1, False), (4, False), (2, False), (1, True)])
def test_extension_float_convolution(dtype, groups, transposed):
    x = (torch.rand(1, 4, 6, 5, generator=torch.Generator().manual_seed(3)) * 2 - 1).to(dtype)
    assert_extension_float_close(_ConvWithBias(dtype, groups, transposed), (x,), dtype, scale=4.0)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_convolution_needs_its_extension(dtype):
    x = torch.ones(1, 4, 6, 5).to(dtype)
    assert_needs_extension(_ConvWithBias(dtype), (x,), dtype, "aten.convolution.default")
