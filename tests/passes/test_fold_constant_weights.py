"""FoldConstantWeights: weights computed from parameters alone (nn.MultiheadAttention's
slices of in_proj_weight) are constants before annotation, so they quantize and fold."""

import pytest
import torch

from etarm.passes.fold_constant_weights import fold_constant_weights
from etarm.testing.quantized_reference import assert_quantized_close


class SlicedWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(12, 4))

    def forward(self, x):
        first, second, _third = self.weight.chunk(3)
        return torch.nn.functional.linear(x, first) + torch.nn.functional.linear(x * 2, second.t().t())


def exported(module, inputs):
    return torch.export.export(module, inputs, strict=False).module()


def call_targets(model):
    return [str(n.target) for n in model.graph.nodes if n.op == "call_function"]


def test_weights_sliced_from_a_parameter_become_constants():
    torch.manual_seed(0)
    module, x = SlicedWeight(), torch.randn(2, 4)
    model = exported(module, (x,))
    assert fold_constant_weights(model) >= 2
    targets = call_targets(model)
    assert "aten.chunk.default" not in targets and "aten.split.Tensor" not in targets
    assert targets.count("aten.linear.default") == 2
    torch.testing.assert_close(model(x), module(x))


def test_values_computed_from_inputs_stay_ops():
    model = exported(torch.nn.Linear(4, 3), (torch.randn(2, 4),))
    assert fold_constant_weights(model) == 0


class Attention(torch.nn.Module):
    def __init__(self, **options):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(16, 2, **options)

    def forward(self, q, k, v):
        return self.attention(q, k, v, need_weights=False)[0]


@pytest.mark.parametrize("options", [{}, {"kdim": 8, "vdim": 12}, {"bias": False, "batch_first": True}])
def test_multihead_attention_runs_quantized_whole(options):
    torch.manual_seed(0)
    module = Attention(**options).eval()
    kdim, vdim = options.get("kdim", 16), options.get("vdim", 16)
    batch_first = options.get("batch_first", False)
    shape = (lambda seq, dim: (2, seq, dim)) if batch_first else (lambda seq, dim: (seq, 2, dim))
    inputs = (torch.randn(shape(5, 16)), torch.randn(shape(7, kdim)), torch.randn(shape(7, vdim)))
    assert_quantized_close(module, inputs, max_lsb=2.0)
