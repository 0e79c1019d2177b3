"""FoldBatchNormIntoConvolution: an inference batch norm after a convolution becomes the convolution's weights and bias."""

import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.passes.fold_batch_norm_into_convolution import FoldBatchNormIntoConvolution
from etarm.testing.cpu_fallback import Fn
from etarm.testing.edge_programs import assert_same_as_module, calls, edge_program, only_call

BATCH_NORM = "aten._native_batch_norm_legit_no_training.default"
CONVOLUTION = "aten.convolution.default"


def trained(norm):
    """``norm`` with statistics and affine parameters far from their defaults (eval mode)."""
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        norm.running_mean.copy_(torch.rand(norm.num_features, generator=generator) * 2 - 1)
        norm.running_var.copy_(torch.rand(norm.num_features, generator=generator) + 0.25)
        if norm.affine:
            norm.weight.copy_(torch.rand(norm.num_features, generator=generator) + 0.5)
            norm.bias.copy_(torch.rand(norm.num_features, generator=generator) - 0.5)
    return norm.eval()


def conv_bn(conv, norm_type=torch.nn.BatchNorm2d, **norm_options):
    channels = conv.out_channels
    return torch.nn.Sequential(conv, trained(norm_type(channels, **norm_options))).eval()


FOLDABLE = {
    "conv2d": lambda: conv_bn(torch.nn.Conv2d(3, 4, 3)),
    "conv2d_without_bias": lambda: conv_bn(torch.nn.Conv2d(3, 4, 3, bias=False)),
    "conv2d_strided_padded": lambda: conv_bn(torch.nn.Conv2d(4, 6, 3, stride=2, padding=1)),
    "grouped": lambda: conv_bn(torch.nn.Conv2d(4, 6, 3, groups=2)),
    "depthwise": lambda: conv_bn(torch.nn.Conv2d(4, 4, 3, groups=4, bias=False)),
    "depthwise_multiplier": lambda: conv_bn(torch.nn.Conv2d(4, 8, 3, groups=4)),
    "norm_without_affine": lambda: conv_bn(torch.nn.Conv2d(3, 4, 1), affine=False),
    "transposed": lambda: conv_bn(torch.nn.ConvTranspose2d(4, 3, 3, stride=2)),
    "conv1d": lambda: conv_bn(torch.nn.Conv1d(4, 5, 3), torch.nn.BatchNorm1d),
}
INPUT_SHAPES = {"conv1d": (2, 4, 9)}


def folded_program(module, inputs):
    program = edge_program(module, inputs)
    assert calls(program, BATCH_NORM), "the edge program has no batch norm to fold"
    FoldBatchNormIntoConvolution()(program)
    return program


@pytest.mark.parametrize("name", FOLDABLE)
def test_batch_norm_after_a_convolution_is_folded(name):
    torch.manual_seed(0)
    module = FOLDABLE[name]()
    channels = module[0].in_channels
    inputs = (torch.randn(*INPUT_SHAPES.get(name, (2, channels, 7, 7))),)
    program = folded_program(module, inputs)
    assert not calls(program, BATCH_NORM)
    conv = only_call(program, CONVOLUTION)
    assert list(program.graph.output_node().args[0]) == [conv]
    # The folded weight and bias are new parameters; the old ones and the norm's are gone.
    weight, bias = conv.args[1], conv.args[2]
    assert weight.name.endswith("_bn_folded_weight") and bias.name.endswith("_bn_folded_bias")
    assert set(program.graph_signature.inputs_to_parameters.values()) == {weight.name, bias.name}
    assert not [key for key in program.state_dict if "running_" in key]
    assert_same_as_module(program, module, inputs, atol=1e-5)


def test_the_folded_weights_are_the_scaled_ones():
    module = conv_bn(torch.nn.Conv2d(2, 3, 1, bias=False))
    program = folded_program(module, (torch.randn(1, 2, 4, 4),))
    conv, norm = module
    scale = norm.weight / torch.sqrt(norm.running_var + norm.eps)
    weight_name, bias_name = (only_call(program, CONVOLUTION).args[i].name for i in (1, 2))
    parameters = {name: program.state_dict[target] for name, target in program.graph_signature.inputs_to_parameters.items()}
    torch.testing.assert_close(parameters[weight_name], conv.weight * scale[:, None, None, None])
    torch.testing.assert_close(parameters[bias_name], norm.bias - norm.running_mean * scale)


class ConvThen(torch.nn.Module):
    """conv, then ``after(conv_result, norm)``."""

    def __init__(self, after, conv=None):
        super().__init__()
        self.conv = conv or torch.nn.Conv2d(4, 4, 3)
        self.norm = trained(torch.nn.BatchNorm2d(self.conv.out_channels))
        self.after = after

    def forward(self, x):
        return self.after(self.conv(x), self.norm)


NOT_FOLDABLE = {
    "after_an_activation": ConvThen(lambda y, norm: norm(torch.relu(y))),
    "conv_result_read_elsewhere": ConvThen(lambda y, norm: (norm(y), y * 2)),
    "grouped_transposed": ConvThen(lambda y, norm: norm(y), torch.nn.ConvTranspose2d(4, 4, 3, groups=2)),
}


@pytest.mark.parametrize("name", NOT_FOLDABLE)
def test_batch_norm_that_cannot_be_folded_stays(name):
    module = NOT_FOLDABLE[name].eval()
    inputs = (torch.randn(2, 4, 7, 7),)
    program = folded_program(module, inputs)
    assert calls(program, BATCH_NORM) and calls(program, CONVOLUTION)
    assert_same_as_module(program, module, inputs, atol=1e-5)


def test_batch_norm_of_an_input_stays():
    module = trained(torch.nn.BatchNorm2d(3))
    inputs = (torch.randn(2, 3, 4, 4),)
    program = folded_program(module, inputs)
    assert calls(program, BATCH_NORM)
    assert_same_as_module(program, module, inputs)


def test_batch_norm_with_statistics_given_at_run_time_stays():
    conv = torch.nn.Conv2d(3, 4, 3).eval()
    module = Fn(lambda x, mean, var: F.batch_norm(conv(x), mean, var, training=False))
    inputs = (torch.randn(1, 3, 5, 5), torch.randn(4), torch.rand(4) + 0.5)
    program = folded_program(module, inputs)
    assert calls(program, BATCH_NORM)
    assert_same_as_module(program, module, inputs)


def test_a_folded_batch_norm_costs_no_tosa_operator():
    torch.manual_seed(0)
    inputs = (torch.randn(1, 3, 8, 8),)
    with_norm = conv_bn(torch.nn.Conv2d(3, 4, 3))
    alone = torch.nn.Sequential(with_norm[0])
    ops = [compile_model(m, inputs, "TOSA-1.0+FP").report["partitions"][0]["tosa_ops"] for m in (with_norm, alone)]
    assert ops[0] == ops[1]
