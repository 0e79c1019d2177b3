"""fold_batch_norms folds what prepare_pt2e would fold, to the same parameters and graph, and
leaves the cases it does not handle to prepare_pt2e."""

import copy

import pytest
import torch
from etarm.compiler import compile_model
from etarm.models import load_model
from etarm.quantization import pt2e_flow
from etarm.quantization.fold_batch_norms import fold_batch_norms
from torchao.quantization.pt2e.utils import _fuse_conv_bn_


class ConvNorm(torch.nn.Module):
    def __init__(self, convolution, channels, also_read_convolution=False):
        super().__init__()
        self.convolution = convolution
        self.norm = (
            torch.nn.BatchNorm1d(channels)
            if isinstance(convolution, torch.nn.Conv1d)
            else torch.nn.BatchNorm2d(channels)
        )
        self.also_read_convolution = also_read_convolution

    def forward(self, x):
        y = self.convolution(x)
        z = self.norm(y)
        return z + y if self.also_read_convolution else z


class SharedWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.convolution = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.first, self.second = torch.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)

    def forward(self, x):
        return self.first(self.convolution(x)) + self.second(self.convolution(x + 1))


def _trained(module):
    torch.manual_seed(0)
    for norm in module.modules():
        if isinstance(norm, torch.nn.modules.batchnorm._BatchNorm):
            norm.running_mean.uniform_(-1, 1)
            norm.running_var.uniform_(0.5, 2)
            norm.weight.data.uniform_(0.5, 1.5)
            norm.bias.data.uniform_(-1, 1)
    return module.eval()


def _graph(module, x):
    return torch.export.export(_trained(module), (x,)).module()


def _same_as_prepare_pt2e(module, x, expected_folds):
    ours = _graph(module, x)
    theirs = copy.deepcopy(ours)
    assert fold_batch_norms(ours) == expected_folds
    _fuse_conv_bn_(ours)  # what prepare_pt2e does next: nothing when everything is folded
    _fuse_conv_bn_(theirs)
    assert ours.code == theirs.code
    assert ours.state_dict().keys() == theirs.state_dict().keys()
    assert all(torch.equal(ours.state_dict()[k], theirs.state_dict()[k]) for k in ours.state_dict())
    return ours


@pytest.mark.parametrize(
    "convolution, x",
    [
        (torch.nn.Conv2d(3, 4, 3, padding=1), torch.rand(1, 3, 8, 8)),
        (torch.nn.Conv2d(3, 4, 3, bias=False), torch.rand(1, 3, 8, 8)),
        (torch.nn.Conv2d(4, 4, 3, groups=4, bias=False), torch.rand(1, 4, 8, 8)),
        (torch.nn.ConvTranspose2d(3, 4, 2, stride=2), torch.rand(1, 3, 4, 4)),
        (torch.nn.Conv1d(3, 4, 5, bias=False), torch.rand(1, 3, 16)),
    ],
)
def test_folds_to_what_prepare_pt2e_computes(convolution, x):
    module = ConvNorm(convolution, 4)
    folded = _same_as_prepare_pt2e(module, x, expected_folds=1)
    torch.testing.assert_close(folded(x), module(x), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "module",
    [ConvNorm(torch.nn.Conv2d(3, 4, 3), 4, also_read_convolution=True), SharedWeight()],
    ids=["convolution read elsewhere", "shared weight"],
)
def test_a_batch_norm_gets_its_own_convolution_where_folding_would_change_other_readers(module):
    """prepare_pt2e's own folding changes what the other readers compute here (its outputs are far
    from the float model's); with a private convolution every reader stays exact."""
    x = torch.rand(1, 3, 8, 8)
    graph = _graph(module, x)
    by_prepare_pt2e = copy.deepcopy(graph)
    _fuse_conv_bn_(by_prepare_pt2e)
    assert not torch.allclose(by_prepare_pt2e(x), module(x), atol=1e-3)
    assert fold_batch_norms(graph) == (2 if isinstance(module, SharedWeight) else 1)
    assert not any(node.op == "call_function" and "batch_norm" in str(node.target) for node in graph.graph.nodes)
    torch.testing.assert_close(graph(x), module(x), atol=1e-5, rtol=1e-5)


def test_a_compiled_network_is_the_same_program(monkeypatch):
    model, inputs = load_model("cnn_bn")
    folded = compile_model(model, inputs, "ethos-u55-128", quantize=True).pte
    monkeypatch.setattr(pt2e_flow, "fold_batch_norms", lambda module: 0)
    assert compile_model(model, inputs, "ethos-u55-128", quantize=True).pte == folded
