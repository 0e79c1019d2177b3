"""TOSAQuantizer annotation rules, checked on the convert_pt2e'd graphs (no lowering)."""

import pytest
import torch
import torch.nn.functional as F
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e

from etarm.errors import EtarmError
from etarm.quantizer import (
    EthosUQuantizer,
    TOSAQuantizer,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from etarm.tosa.compile_spec import TosaCompileSpec

QDQ = torch.ops.quantized_decomposed
INT8 = get_symmetric_quantization_config()


def quantize(model, inputs, quantizer):
    torch.manual_seed(0)
    prepared = prepare_pt2e(torch.export.export(model.eval(), inputs, strict=False).module(), quantizer)
    prepared(*inputs)
    return convert_pt2e(prepared)


def calls(gm, target):
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target == target]


def op_node(gm, target):
    (node,) = calls(gm, target)
    return node


def dq_params(node):
    """(scale, zero_point, qmin, qmax, dtype) of a per-tensor dequantize input of ``node``."""
    assert node.target == QDQ.dequantize_per_tensor.default, f"{node.name} is not a dequantize"
    return tuple(node.args[1:6])


def q_params(node):
    """Parameters of the quantize that consumes ``node``'s output."""
    (user,) = node.users
    assert user.target == QDQ.quantize_per_tensor.default, f"{node.name} output is not quantized"
    return tuple(user.args[1:6])


def tosa(spec="TOSA-1.0+INT"):
    return TOSAQuantizer(spec)


class Blocks(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.block = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Sigmoid())
        self.conv = torch.nn.Conv1d(1, 2, 3)

    def forward(self, x):
        y = self.block(self.fc(x))
        return self.conv(y.unsqueeze(1))


def test_no_global_config_leaves_the_model_float():
    gm = quantize(Blocks(), (torch.randn(2, 8),), tosa())
    assert not calls(gm, QDQ.quantize_per_tensor.default) and not calls(gm, QDQ.dequantize_per_tensor.default)


def test_set_module_type_none_leaves_those_modules_float():
    gm = quantize(Blocks(), (torch.randn(2, 8),), tosa().set_global(INT8).set_module_type(torch.nn.Linear, None))
    for linear in calls(gm, torch.ops.aten.linear.default):
        assert linear.args[0].target != QDQ.dequantize_per_tensor.default
        assert linear.args[1].op == "get_attr"  # weight left float
    conv = op_node(gm, torch.ops.aten.conv1d.default)
    assert conv.args[1].target == QDQ.dequantize_per_channel.default


def test_set_module_name_overrides_type_and_global():
    quantizer = (
        tosa("TOSA-1.0+INT+int16")
        .set_global(INT8)
        .set_module_type(torch.nn.Linear, None)
        .set_module_name("block.0", get_symmetric_a16w8_quantization_config())
    )
    gm = quantize(Blocks(), (torch.randn(2, 8),), quantizer)
    first, second = calls(gm, torch.ops.aten.linear.default)
    assert first.args[0].target != QDQ.dequantize_per_tensor.default  # fc: module type -> float
    assert dq_params(second.args[0])[4] == torch.int16  # block.0: module name -> a16w8
    assert second.args[1].args[-1] == torch.int8  # ... with int8 weights
    assert dq_params(op_node(gm, torch.ops.aten.sigmoid.default).args[0])[4] == torch.int8  # block.1: global


def test_set_module_name_innermost_wins():
    quantizer = tosa().set_global(INT8).set_module_name("block", None).set_module_name("block.1", INT8)
    gm = quantize(Blocks(), (torch.randn(2, 8),), quantizer)
    outer_linear, inner_linear = calls(gm, torch.ops.aten.linear.default)
    assert outer_linear.args[1].target == QDQ.dequantize_per_channel.default  # fc: global
    assert inner_linear.args[1].op == "get_attr"  # block.0: module name 'block' -> float weight
    assert q_params(op_node(gm, torch.ops.aten.sigmoid.default))[:2] == (1 / 256, -128)  # block.1 quantized


def test_set_io_quantizes_only_inputs_and_outputs():
    gm = quantize(_Fn(lambda x, y: (x + y) * y), (torch.randn(4), torch.randn(4)), tosa().set_io(INT8))
    add = op_node(gm, torch.ops.aten.add.Tensor)
    mul = op_node(gm, torch.ops.aten.mul.Tensor)
    assert all(a.target == QDQ.dequantize_per_tensor.default for a in add.args)  # inputs quantized
    assert next(iter(add.users)) is mul  # no quantization between the ops
    assert q_params(mul)[4] == torch.int8  # the output is quantized
    assert len(calls(gm, QDQ.quantize_per_tensor.default)) == 3


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


@pytest.mark.parametrize(
    "fn, target",
    [
        (lambda x: x.reshape(4, 8, 2), torch.ops.aten.reshape.default),
        (lambda x: x.permute(2, 0, 1), torch.ops.aten.permute.default),
        (lambda x: x[:, 1:3], torch.ops.aten.slice.Tensor),
        (lambda x: F.max_pool1d(x, 2), torch.ops.aten.max_pool1d.default),
        (lambda x: x.transpose(0, 1), torch.ops.aten.transpose.int),
    ],
    ids=["reshape", "permute", "slice", "max_pool1d", "transpose"],
)
def test_data_movement_shares_input_qparams(fn, target):
    gm = quantize(_Fn(lambda x: fn(torch.tanh(x) * 3)), (torch.randn(4, 4, 4),), tosa().set_global(INT8))
    node = op_node(gm, target)
    assert dq_params(node.args[0]) == q_params(node)


def test_cat_inputs_share_one_set_of_qparams():
    gm = quantize(_Fn(lambda x, y: torch.cat([x, y * 4], 1)), (torch.randn(2, 3), torch.randn(2, 3)), tosa().set_global(INT8))
    cat = op_node(gm, torch.ops.aten.cat.default)
    params = {dq_params(a) for a in cat.args[0]}
    assert len(params) == 1 and params == {q_params(cat)}


def test_split_results_share_input_qparams():
    gm = quantize(_Fn(lambda x: [t * 1 for t in torch.split(x * 2, 2)]), (torch.randn(4, 3),), tosa().set_global(INT8))
    split = op_node(gm, torch.ops.aten.split.Tensor)
    for item in split.users:
        assert q_params(item) == dq_params(split.args[0])


@pytest.mark.parametrize(
    "fn, target, expected",
    [
        (torch.sigmoid, torch.ops.aten.sigmoid.default, (1 / 256, -128)),
        (torch.tanh, torch.ops.aten.tanh.default, (1 / 128, 0)),
        (lambda x: torch.softmax(x, -1), torch.ops.aten.softmax.int, (1 / 256, -128)),
    ],
    ids=["sigmoid", "tanh", "softmax"],
)
def test_fixed_output_ranges(fn, target, expected):
    gm = quantize(_Fn(fn), (torch.randn(3, 5) * 10,), tosa().set_global(INT8))
    scale, zero_point, qmin, qmax, dtype = q_params(op_node(gm, target))
    assert (scale, zero_point, qmin, qmax, dtype) == (*expected, -128, 127, torch.int8)


def test_fixed_output_ranges_int16_are_symmetric():
    gm = quantize(_Fn(torch.sigmoid), (torch.randn(3, 5),), tosa("TOSA-1.0+INT+int16").set_global(get_symmetric_a16w8_quantization_config()))
    scale, *rest = q_params(op_node(gm, torch.ops.aten.sigmoid.default))
    assert scale == pytest.approx(1 / 32767) and rest == [0, -32767, 32767, torch.int16]


def test_unary_table_ops_get_own_input_and_output_params():
    gm = quantize(_Fn(lambda x: torch.exp(x) + F.gelu(x)), (torch.randn(8),), tosa().set_global(INT8))
    for target in (torch.ops.aten.exp.default, torch.ops.aten.gelu.default):
        node = op_node(gm, target)
        assert dq_params(node.args[0])[4] == torch.int8 and q_params(node)[4] == torch.int8
        assert dq_params(node.args[0]) != q_params(node)


class ConvLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x)).mean((2, 3))
        return torch.clamp(self.fc(y), -1, 1)


def test_weights_per_channel_and_bias_from_input_times_weight_scale():
    gm = quantize(ConvLinear(), (torch.randn(2, 3, 6, 6),), tosa().set_global(INT8))
    for target in (torch.ops.aten.conv2d.default, torch.ops.aten.linear.default):
        node = op_node(gm, target)
        weight, bias = node.args[1], node.args[2]
        assert weight.target == QDQ.dequantize_per_channel.default
        assert tuple(weight.args[3:]) == (0, -127, 127, torch.int8)
        assert bias.target == QDQ.dequantize_per_channel.default and bias.args[-1] == torch.int32
        input_scale = dq_params(node.args[0])[0]
        weight_scales = getattr(gm, weight.args[1].target)
        bias_scales = getattr(gm, bias.args[1].target)
        torch.testing.assert_close(bias_scales, (input_scale * weight_scales).float())


def test_per_tensor_weights_when_not_per_channel():
    gm = quantize(ConvLinear(), (torch.randn(2, 3, 6, 6),), tosa().set_global(get_symmetric_quantization_config(is_per_channel=False)))
    conv = op_node(gm, torch.ops.aten.conv2d.default)
    assert conv.args[1].target == QDQ.dequantize_per_tensor.default and conv.args[1].args[2] == 0  # symmetric


def test_transposed_convolution_weights_per_output_channel():
    model = _Fn(torch.nn.ConvTranspose2d(3, 5, 2))
    gm = quantize(model, (torch.randn(1, 3, 4, 4),), tosa().set_global(INT8))
    node = op_node(gm, torch.ops.aten.conv_transpose2d.input)
    assert node.args[1].args[3] == 1  # (in, out, kh, kw): axis 1
    assert getattr(gm, node.args[1].args[1].target).shape == (5,)


def test_relu_and_clamp_fuse_into_the_weighted_op():
    gm = quantize(ConvLinear(), (torch.randn(2, 3, 6, 6),), tosa().set_global(INT8))
    for producer, activation in (
        (torch.ops.aten.conv2d.default, torch.ops.aten.relu.default),
        (torch.ops.aten.linear.default, torch.ops.aten.clamp.default),
    ):
        node = op_node(gm, producer)
        assert next(iter(node.users)).target == activation  # no quantize between
        assert q_params(op_node(gm, activation))[4] == torch.int8


def test_relu_not_fused_across_configs():
    quantizer = tosa().set_global(INT8).set_module_type(torch.nn.ReLU, get_symmetric_quantization_config(act_qmin=-127))
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    gm = quantize(model, (torch.randn(2, 4),), quantizer)
    assert q_params(op_node(gm, torch.ops.aten.linear.default))[2] == -128  # linear quantizes its own output
    relu = op_node(gm, torch.ops.aten.relu.default)
    # relu reads linear's integers as they are (no requantize) and writes with its own config.
    assert dq_params(relu.args[0])[2] == -128 and q_params(relu)[2] == -127


def test_scalar_operands_become_exact_quantized_constants():
    gm = quantize(_Fn(lambda x: x * 0.5 - 3.0), (torch.randn(6),), tosa().set_global(INT8))
    values = []
    for target in (torch.ops.aten.mul.Tensor, torch.ops.aten.sub.Tensor):
        constant = op_node(gm, target).args[1]
        assert constant.target == QDQ.dequantize_per_tensor.default
        values.append(float(QDQ.dequantize_per_tensor(getattr(gm, constant.args[0].target), *constant.args[1:])))
    assert values == pytest.approx([0.5, 3.0], abs=1e-6)


def test_qat_config_inserts_fake_quantizers():
    quantizer = tosa().set_global(get_symmetric_quantization_config(is_qat=True))
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    inputs = (torch.randn(2, 4),)
    prepared = prepare_qat_pt2e(torch.export.export(model, inputs, strict=False).module(), quantizer)
    prepared(*inputs)
    names = {type(m).__name__ for m in prepared.modules()}
    assert "FusedMovingAvgObsFakeQuantize" in names and "FakeQuantize" in names
    converted = convert_pt2e(prepared)
    assert calls(converted, QDQ.dequantize_per_channel.default)


def test_validate_rejects_int16_without_the_extension():
    with pytest.raises(EtarmError, match="int16"):
        quantize(_Fn(torch.sigmoid), (torch.randn(3),), tosa().set_global(get_symmetric_a16w8_quantization_config()))


def test_quantizer_faces():
    quantizer = EthosUQuantizer("ethos-u55-128").set_global(INT8)
    assert isinstance(quantizer, TOSAQuantizer) and str(quantizer.tosa_spec) == "TOSA-1.0+INT+int16"
    with pytest.raises(EtarmError, match="EthosUCompileSpec or an Ethos-U target name"):
        EthosUQuantizer(TosaCompileSpec("TOSA-1.0+INT"))


class _Composites(torch.nn.Module):
    """A layer norm, an RMS norm, plain and masked attention."""

    def __init__(self):
        super().__init__()
        self.layer_norm, self.rms_norm = torch.nn.LayerNorm(8), torch.nn.RMSNorm(8)

    def forward(self, q, k, v, mask):
        plain = F.scaled_dot_product_attention(self.layer_norm(q), k, v)
        masked = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return plain + masked + self.rms_norm(q)


def _composites_quantized(quantizer, config=INT8):
    torch.manual_seed(0)
    inputs = (torch.randn(1, 2, 4, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8), torch.rand(4, 6) > 0.3)
    return quantize(_Composites(), inputs, quantizer.set_global(config))


def _ops(gm):
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def test_ethos_u55_splits_norms_and_unmasked_attention_into_quantized_steps():
    gm = _composites_quantized(EthosUQuantizer("ethos-u55-128"))
    ops = _ops(gm)
    assert "aten.layer_norm.default" not in ops and "aten.rms_norm.default" not in ops
    assert ops.count("aten.scaled_dot_product_attention.default") == 1  # the masked one stays whole
    # The softmax weights and the norms' reciprocal deviations are int8 activations now.
    for target in (torch.ops.aten.softmax.int, torch.ops.aten.rsqrt.default):
        nodes = calls(gm, target)
        assert nodes and all(q_params(node)[4] == torch.int8 for node in nodes)
    assert len(calls(gm, torch.ops.aten.rsqrt.default)) == 2


@pytest.mark.parametrize(
    "quantizer, config",
    [
        (lambda: EthosUQuantizer("ethos-u85-256"), INT8),
        (lambda: EthosUQuantizer("ethos-u55-128", exact_composites=True), INT8),
        (lambda: EthosUQuantizer("ethos-u55-128"), get_symmetric_a16w8_quantization_config()),  # no int16 TABLE on U55
    ],
    ids=["u85", "u55-exact", "u55-int16"],
)
def test_exact_composites_stay_whole(quantizer, config):
    ops = _ops(_composites_quantized(quantizer(), config))
    assert ops.count("aten.scaled_dot_product_attention.default") == 2
    assert "aten.layer_norm.default" in ops and "aten.rms_norm.default" in ops and "aten.softmax.int" not in ops
