"""Convolutions, linear layers and matrix products on the TOSA INT profile.

PT2E-quantized through the real flow (per-channel int8 weights, int32 biases) and compared
with the convert_pt2e'd model in eager, in output steps (LSB):

- int8: exact integer accumulation, then one RESCALE with a 32-bit multiplier: 1 LSB.
- int16 activations x int8 weights (TOSA-1.0+INT+int16): the int48 accumulator can only
  be rescaled with a 16-bit multiplier (TOSA forbids scale32 on int48), whose relative
  error of up to 2**-15 moves values near full scale (32767 steps) by up to one more
  step: 2 LSB.
"""

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from torchao.quantization.pt2e import PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from etarm.compiler import compile_model
from etarm.quantizer import (
    TOSAQuantizer,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close

INT16 = "TOSA-1.0+INT+int16"
INT16_LSB = 2


def tosa_ops(run) -> list[str]:
    return run.result.report["partitions"][0]["tosa_ops"]


def per_tensor_quantizer():
    return TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config(is_per_channel=False))


def _randn(*shapes, seed=0):
    torch.manual_seed(seed)
    return tuple(torch.randn(shape) for shape in shapes)


# --- convolutions ---------------------------------------------------------------------------

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
    run = assert_quantized_close(make().eval(), _randn(shape))
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
    run = assert_quantized_close(model, _randn((1, 3, 6, 6)))
    assert tosa_ops(run) == ["TRANSPOSE", "CONV2D", "RESCALE", "TRANSPOSE"]
    assert run.result.report["partitions"][0]["outputs"][0]["zero_point"] == -128


def test_int8_conv_chain_with_hardtanh_runs_channels_last():
    torch.manual_seed(3)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Hardtanh(-1.0, 1.0), torch.nn.Conv2d(8, 8, 3, groups=8)
    ).eval()
    run = assert_quantized_close(model, _randn((1, 3, 7, 7)))
    ops = tosa_ops(run)
    assert ops.count("TRANSPOSE") == 2 and ops.count("RESCALE") == 2 and ops.count("CLAMP") <= 1


def test_per_tensor_weights():
    torch.manual_seed(4)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2), torch.nn.Flatten(), torch.nn.Linear(36, 5)).eval()
    run = assert_quantized_close(model, _randn((2, 3, 7, 7)), quantizer=per_tensor_quantizer())
    assert tosa_ops(run).count("CONV2D") == 2  # the linear layer is a 1x1 CONV2D too


def test_runtime_weight_is_rearranged_in_the_graph():
    """A weight that is a model input (per-tensor) is transposed to OHWI by the graph."""
    fn = Fn(lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2))
    run = assert_quantized_close(fn, _randn((1, 4, 7, 7), (6, 2, 3, 3)), quantizer=per_tensor_quantizer())
    assert tosa_ops(run).count("CONV2D") == 2 and tosa_ops(run).count("TRANSPOSE") == 4


# --- linear and matrix products -----------------------------------------------------------------


@pytest.mark.parametrize("input_shape, bias", [((7,), True), ((2, 3, 7), False), ((2, 1, 3, 7), True)], ids=str)
def test_int8_linear(input_shape, bias):
    torch.manual_seed(5)
    run = assert_quantized_close(torch.nn.Linear(7, 5, bias=bias).eval(), _randn(input_shape))
    assert tosa_ops(run) == ["RESHAPE", "CONV2D", "RESCALE", "RESHAPE"]


def test_int8_linear_relu_fused():
    torch.manual_seed(6)
    model = torch.nn.Sequential(torch.nn.Linear(6, 9), torch.nn.ReLU(), torch.nn.Linear(9, 4)).eval()
    run = assert_quantized_close(model, _randn((4, 6)))
    assert tosa_ops(run).count("RESCALE") == 2 and "CLAMP" not in tosa_ops(run)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (torch.mm, ((3, 4), (4, 5))),
        (torch.bmm, ((2, 3, 4), (2, 4, 5))),
        (torch.matmul, ((2, 1, 3, 4), (3, 4, 5))),  # broadcast batch dims
        (torch.matmul, ((1, 2, 1, 3, 5), (2, 1, 5, 1))),  # rank 5 x rank 4
    ],
    ids=["mm", "bmm", "matmul_bcast", "matmul_rank5"],
)
def test_int8_matrix_products(fn, shapes):
    run = assert_quantized_close(Fn(fn), _randn(*shapes, seed=7))
    ops = tosa_ops(run)
    assert ops.count("MATMUL") == 1 and ops.count("RESCALE") == 1
    if fn is torch.bmm:
        assert ops == ["MATMUL", "RESCALE"]


def test_int8_matmul_shared_right_operand_and_vectors():
    """A right operand without batch dims folds the left batch into rows (no TILE); 1-D operands."""
    fn = Fn(lambda a, b, v: (torch.matmul(a, b), torch.matmul(v, a), torch.matmul(a, v[:4])))
    run = assert_quantized_close(fn, _randn((2, 3, 5, 4), (4, 5), (5,), seed=11))
    assert tosa_ops(run).count("MATMUL") == 3 and tosa_ops(run).count("TILE") == 1  # only v @ a tiles (v)


@pytest.mark.parametrize("self_shape, beta, alpha", [((5,), 1.0, 1.0), ((3, 5), -0.5, 2.0)], ids=str)
def test_int8_addmm(self_shape, beta, alpha):
    """self is rescaled onto the product's int32 steps and added (SUB for negative beta);
    with beta 0 it is ignored."""
    fn = Fn(lambda s, a, b: (torch.addmm(s, a, b, beta=beta, alpha=alpha), torch.addmm(s, a, b, beta=0.0, alpha=0.5)))
    run = assert_quantized_close(fn, _randn(self_shape, (3, 4), (4, 5), seed=8))
    assert tosa_ops(run).count("MATMUL") == 2


# --- int16 activations, int8 weights (a16w8) -------------------------------------------------------

A16W8 = {
    "conv2d_relu": (lambda: torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU()), (1, 3, 6, 7)),
    "conv2d_groups": (lambda: torch.nn.Conv2d(4, 6, 3, 2, groups=2), (1, 4, 9, 8)),
    "depthwise": (lambda: torch.nn.Conv2d(4, 4, 3, groups=4, bias=False), (1, 4, 6, 6)),
    "conv_transpose2d": (lambda: torch.nn.ConvTranspose2d(3, 4, 3, 2, 1, 1), (1, 3, 4, 5)),
    "conv1d": (lambda: torch.nn.Conv1d(3, 5, 3), (2, 3, 9)),
    "linear": (lambda: torch.nn.Linear(8, 6), (2, 3, 8)),
}


@pytest.mark.parametrize("name", list(A16W8))
def test_a16w8_weighted(name):
    make, shape = A16W8[name]
    torch.manual_seed(9)
    run = assert_quantized_close(make().eval(), _randn(shape), target=INT16, max_lsb=INT16_LSB)
    partition = run.result.report["partitions"][0]
    assert partition["inputs"][0]["dtype"] == "int16" and partition["outputs"][0]["zero_point"] == 0


def test_a16w8_matrix_products():
    fn = Fn(lambda a, b, c, s: (torch.bmm(a, b), torch.matmul(a, c), torch.addmm(s, a[0], c, beta=0.5)))
    inputs = _randn((2, 3, 4), (2, 4, 5), (4, 6), (6,), seed=10)
    run = assert_quantized_close(fn, inputs, target=INT16, max_lsb=INT16_LSB)
    assert tosa_ops(run).count("MATMUL") == 3


# --- what stays on CPU -----------------------------------------------------------------------------


def _cpu_reason(fn, inputs, op, target="TOSA-1.0+INT", quantizer=None) -> str:
    report = compile_model(Fn(fn), inputs, target, quantize=True, quantizer=quantizer).report
    (reason,) = [entry["reason"] for entry in report["cpu_ops"] if entry["op"] == op]
    return reason


def test_runtime_bias_stays_on_cpu():
    fn = lambda x, w, b: F.conv2d(x, w, b)  # noqa: E731
    inputs = _randn((1, 3, 5, 5), (4, 3, 3, 3), (4,))
    reason = _cpu_reason(fn, inputs, "aten.convolution.default", quantizer=per_tensor_quantizer())
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
    reason = _cpu_reason(conv, _randn((1, 3, 5, 5)), "aten.convolution.default", INT16, quantizer)
    assert reason == "weight is quantized to int16; TOSA takes int8 here"


def test_negative_alpha_addmm_stays_on_cpu():
    fn = lambda s, a, b: torch.addmm(s, a, b, alpha=-1.0)  # noqa: E731
    reason = _cpu_reason(fn, _randn((5,), (3, 4), (4, 5)), "aten.addmm.default")
    assert reason == "alpha=-1.0 is not lowered for the INT profile (positive alpha only)"


def test_conv_transpose3d_stays_on_cpu():
    conv = torch.nn.ConvTranspose3d(2, 2, 2).eval()
    reason = _cpu_reason(conv, _randn((1, 2, 3, 3, 3)), "aten.convolution.default")
    assert reason == "3-D transposed convolution (transposed=True) has no TOSA operator"
