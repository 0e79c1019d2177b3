"""a8w4 (int8 activations, int4 weights) for Cortex-M from the compiler's side: which ops get int4 weights (1-D and 2-D
convolutions, depthwise ones CMSIS-NN's s4 kernels compute exactly, linear layers; the rest keep int8), the packed
constants (CMSIS-NN's s4 layout, half the bytes), their scratch records, the eager semantics against the PT2E model,
the --a8w4 option, and what int4 costs in flash and accuracy on ds_cnn."""

from __future__ import annotations

import math
import pathlib

import pytest
import torch
from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer, int4
from etarm.errors import EtarmError
from etarm.models import load_model
from etarm.op_names import op_name
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import (
    get_symmetric_a8w4_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.testing.edge_programs import calls, edge_program
from etarm.tosa_ir.quant_params import is_dequantize

A8W4_NET = pathlib.Path(__file__).parent / "models" / "a8w4_net.py"
_S4 = ("quantized_conv2d_s4", "quantized_depthwise_conv2d_s4", "quantized_linear_s4")


def _rewritten(model, inputs, config=None):
    quantizer = CortexMQuantizer().set_global(config or get_symmetric_a8w4_quantization_config())
    quantized = quantize_model(model.eval(), inputs, quantizer)
    return quantized, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _cortex_m_ops(program) -> list[torch.fx.Node]:
    return [n for n in calls(program) if op_name(n.target).startswith("cortex_m.quantized")]


def _short(node) -> str:
    return op_name(node.target).split(".")[1]


def _weights_of(quantized) -> list[tuple[torch.Tensor, int, int]]:
    """The PT2E model's weights in graph order: (int8 values, quant_min, quant_max) of each per-channel dequantize
    of a constant."""
    attrs = dict(quantized.named_buffers()) | dict(quantized.named_parameters())
    found = []
    for node in quantized.graph.nodes:
        weight = is_dequantize(node) and "per_channel" in str(node.target) and node.args[6] == torch.int8
        if weight and node.args[0].op == "get_attr":  # (the biases: int32)
            qmin, qmax = node.args[4], node.args[5]
            found.append((attrs.get(node.args[0].target, getattr(quantized, node.args[0].target)), qmin, qmax))
    return found


def _within_one_step(program, got, expected):
    (output,) = next(n for n in program.graph.nodes if n.op == "output").args[0]
    step = float(output.args[1])  # the scale of the dequantize of the model's result
    torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_pack_is_cmsis_nn_s4_layout():
    # Row-major, two values per byte, the first in the low nibble; an odd count leaves the last high nibble 0.
    values = torch.tensor([[1, -2, 3], [-8, 7, 0]], dtype=torch.int8)
    assert int4.pack(values).view(torch.uint8).tolist() == [0xE1, 0x83, 0x07]
    assert int4.pack(values[:1]).view(torch.uint8).tolist() == [0xE1, 0x03]
    assert torch.equal(int4.unpack(int4.pack(values), (2, 3)), values)
    with pytest.raises(ValueError, match="within \\[-8, 7\\]"):
        int4.pack(torch.tensor([8], dtype=torch.int8))
    with pytest.raises(ValueError, match="need an int8 \\[2\\]"):
        int4.unpack(torch.zeros(3, dtype=torch.int8), (3,))


def test_a8w4_net_packs_every_weight_with_an_s4_kernel():
    model, inputs = load_model(str(A8W4_NET))
    quantized, program = _rewritten(model, inputs)
    ops = _cortex_m_ops(program)
    assert [_short(n) for n in ops] == [
        "quantized_conv2d_s4",
        "quantized_depthwise_conv2d_s4",  # 5 channels: the optimized kernel
        "quantized_conv2d_s4",  # 1x1 fast
        "quantized_depthwise_conv2d_s4",  # multiplier 2 over 6 channels: the general kernel
        "quantized_conv2d_s4",  # 1x1 strided
        "quantized_grouped_conv2d",  # no s4 kernel: int8 weights
        "quantized_linear_s4",
        "quantized_linear_s4",
    ]
    weights = _weights_of(quantized)
    assert [(qmin, qmax) for _, qmin, qmax in weights] == [(-7, 7)] * 5 + [(-127, 127)] + [(-7, 7)] * 2
    read = constant_reader(program)
    layouts = {  # torch's weight -> the layout the kernel packs
        "quantized_conv2d_s4": lambda w: w.permute(0, 2, 3, 1),
        "quantized_depthwise_conv2d_s4": lambda w: w.permute(1, 2, 3, 0),
        "quantized_linear_s4": lambda w: w,
    }
    unpacked_bytes = packed_bytes = 0
    for node, (weight, _, _) in zip(ops, weights):
        if _short(node) not in _S4:
            assert read(node.args[2]).dtype == torch.int8 and read(node.args[2]).dim() == 4
            continue
        shape = (
            node.args[12]
            if _short(node) == "quantized_conv2d_s4"
            else node.args[13 if "depthwise" in _short(node) else 9]
        )
        packed = read(node.args[2])
        expected = layouts[_short(node)](weight).contiguous()
        assert list(shape) == list(expected.shape)
        assert packed.dtype == torch.int8 and packed.shape == (math.ceil(expected.numel() / 2),)
        assert torch.equal(int4.unpack(packed, shape), expected)
        unpacked_bytes += expected.numel()
        packed_bytes += packed.numel()
    assert (unpacked_bytes, packed_bytes) == (1259, 631)  # 135 + 45 + 30 + 108 + 72 + 825 + 44 int4 weights
    # Scratch records: the general conv two int16 columns of 3x3x3 taps; the optimized depthwise 5 channels x 9 taps
    # int16 (on every path, plain C too); the 1x1s and the general depthwise none.
    assert [n.args[-1] for n in ops if "conv2d_s4" in _short(n)] == [2 * 27 * 2, 5 * 9 * 2, 0, 0, 0]
    _within_one_step(program, program.module()(*inputs), quantized(*inputs))


class _Depthwise(torch.nn.Module):
    def __init__(self, channels: int, multiplier: int):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels * multiplier, 3, padding=1, groups=channels)

    def forward(self, x):
        return self.conv(x)


@pytest.mark.parametrize(
    "channels, multiplier, batches, op, weight_range",
    [
        (4, 2, 1, "quantized_depthwise_conv2d_s4", (-7, 7)),  # the general kernel, even channels
        (3, 1, 1, "quantized_depthwise_conv2d_s4", (-7, 7)),  # the optimized kernel, odd channels
        (3, 2, 1, "quantized_depthwise_conv2d", (-127, 127)),  # general kernel over odd channels: int8
        (5, 1, 2, "quantized_depthwise_conv2d", (-127, 127)),  # batches: the general kernel again
    ],
)
def test_depthwise_takes_int4_only_where_cmsis_nn_is_exact(channels, multiplier, batches, op, weight_range):
    torch.manual_seed(1)
    model, inputs = _Depthwise(channels, multiplier), (torch.randn(batches, channels, 6, 5),)
    quantized, program = _rewritten(model, inputs)
    assert [_short(n) for n in _cortex_m_ops(program)] == [op]
    assert [(qmin, qmax) for _, qmin, qmax in _weights_of(quantized)] == [weight_range]
    _within_one_step(program, program.module()(*inputs), quantized(*inputs))


class _Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(13, 7)

    def forward(self, x):
        return torch.relu(self.fc(x))


def test_per_tensor_linear_is_the_s4_fully_connected():
    torch.manual_seed(2)
    model, inputs = _Linear(), (torch.randn(3, 2, 13),)
    quantized, program = _rewritten(model, inputs, get_symmetric_a8w4_quantization_config(is_per_channel=False))
    (linear,) = _cortex_m_ops(program)
    assert _short(linear) == "quantized_linear_s4"
    read = constant_reader(program)
    assert read(linear.args[4]).numel() == 1  # one multiplier: arm_fully_connected_s4
    assert read(linear.args[2]).shape == (46,)  # 91 int4 values
    _within_one_step(program, program.module()(*inputs), quantized(*inputs))


def test_sequences_take_int4_weights_as_images():
    # audio_1d: conv1d, a dilated depthwise conv1d over 24 channels (the general s4 kernel, even count) and a 1x1, as
    # images of height 1 (SequencesAsImages), then a linear.
    model, inputs = load_model("audio_1d")
    quantized, program = _rewritten(model, inputs)
    assert [_short(n) for n in _cortex_m_ops(program) if _short(n).endswith("_s4")] == [
        "quantized_conv2d_s4",
        "quantized_depthwise_conv2d_s4",
        "quantized_conv2d_s4",
        "quantized_linear_s4",
    ]
    assert all((qmin, qmax) == (-7, 7) for _, qmin, qmax in _weights_of(quantized))
    _within_one_step(program, program.module()(*inputs), quantized(*inputs))


def test_int8_config_keeps_int8_kernels():
    torch.manual_seed(3)
    _, program = _rewritten(_Depthwise(4, 2), (torch.randn(1, 4, 6, 5),), get_symmetric_quantization_config())
    assert [_short(n) for n in _cortex_m_ops(program)] == ["quantized_depthwise_conv2d"]


def test_a8w4_option_and_its_conflict_with_a16w8():
    model, inputs = load_model(str(A8W4_NET))
    result = compile_model(model, inputs, "cortex-m4", quantize=True, target_options={"a8w4": True})
    assert {op for op in cpu_operators(result.pte) if op.endswith("_s4.out")} == {
        f"cortex_m::{name}.out" for name in _S4
    }
    with pytest.raises(EtarmError, match="--a16w8 and --a8w4 do not combine"):
        compile_model(model, inputs, "cortex-m55", quantize=True, target_options={"a8w4": True, "a16w8": True})


def test_ds_cnn_flash_and_error_against_float():
    """ds_cnn (measured 2026-11-28): the .pte 14,592 -> 13,296 bytes with --a8w4 (its int8 weights 4,288 -> 2,144
    bytes, all constants 6,400 -> 4,208; the rest of the .pte is the program); the PT2E model's RMS error against the
    float model 0.00094 (a8w8) -> 0.0121 (a8w4), of outputs with RMS 0.194 (random weights)."""
    model, inputs = load_model("ds_cnn")
    sizes, errors = {}, {}
    expected = model(*inputs)
    for name, options in (("a8w8", {}), ("a8w4", {"a8w4": True})):
        result = compile_model(model, inputs, "cortex-m55", quantize=True, target_options=options)
        sizes[name] = len(result.pte)
        errors[name] = float((result.quantized_model(*inputs) - expected).pow(2).mean().sqrt())
    assert sizes["a8w4"] < sizes["a8w8"]
    rms = float(expected.pow(2).mean().sqrt())
    assert errors["a8w8"] < errors["a8w4"] < 0.1 * rms
