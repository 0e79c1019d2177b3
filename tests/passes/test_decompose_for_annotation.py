"""DecomposeForAnnotation: prelu, vector norms and clamps by tensors are written as arithmetic before annotation,
so that every piece is quantized and the whole runs in the INT partition."""

import math

import pytest
import torch

from etarm.passes.decompose_for_annotation import decompose_for_annotation
from etarm.testing.quantized_reference import assert_quantized_close


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def targets_after(module, inputs):
    model = torch.export.export(module, inputs, strict=False).module()
    count = decompose_for_annotation(model, lambda node: True)
    return count, [str(n.target) for n in model.graph.nodes if n.op == "call_function"]


def test_prelu_becomes_a_where_over_the_channel_slopes():
    count, ops = targets_after(torch.nn.PReLU(4), (torch.randn(2, 4, 3, 3),))
    assert count == 1
    assert "aten.prelu.default" not in ops
    assert {"aten.where.self", "aten.gt.Scalar", "aten.mul.Tensor", "aten.view.default"} <= set(ops)


@pytest.mark.parametrize(
    "order, pieces",
    [(2, {"aten.sqrt.default", "aten.sum.dim_IntList"}), (1, {"aten.abs.default"}), (math.inf, {"aten.amax.default"})],
)
def test_vector_norms_become_reductions(order, pieces):
    count, ops = targets_after(Fn(lambda x: torch.linalg.vector_norm(x, ord=order, dim=1)), (torch.randn(3, 5),))
    assert count == 1 and pieces <= set(ops)


def test_clamp_by_tensors_becomes_maximum_then_minimum():
    module = Fn(lambda x: torch.clamp(x, min=x * 0.5 - 1.0, max=x * 0.5 + 1.0))
    count, ops = targets_after(module, (torch.randn(3, 5),))
    assert count == 1 and "aten.clamp.Tensor" not in ops
    assert ops.index("aten.maximum.default") < ops.index("aten.minimum.default")


def test_other_norm_orders_are_left_alone():
    count, _ = targets_after(Fn(lambda x: torch.linalg.vector_norm(x, ord=3, dim=1)), (torch.randn(3, 5),))
    assert count == 0


CASES = {
    "prelu_per_channel": (torch.nn.PReLU(4, init=0.2), (2, 4, 5, 5)),
    "prelu_single": (torch.nn.PReLU(), (3, 8)),
    "norm_2": (Fn(lambda x: torch.linalg.vector_norm(x, dim=-1, keepdim=True)), (4, 16)),
    "norm_1": (Fn(lambda x: torch.linalg.vector_norm(x, ord=1, dim=1)), (4, 16)),
    "norm_inf": (Fn(lambda x: torch.linalg.vector_norm(x, ord=math.inf, dim=0)), (4, 16)),
    "normalize": (Fn(lambda x: torch.nn.functional.normalize(x, dim=1)), (4, 16)),
    # Annotated like the functional and data-movement forms they are (annotate_shared,
    # quantizer.functional_name): tril, slice_scatter, an in-place activation.
    "tril": (Fn(torch.tril), (6, 6)),
    "slice_scatter": (Fn(lambda x: torch.slice_scatter(x, x[:, :2] * 0.5, 1, 2, 4)), (3, 6)),
    "leaky_relu_inplace": (Fn(lambda x: torch.nn.functional.leaky_relu_(x * 1.0, 0.1)), (3, 6)),
}


@pytest.mark.parametrize("name", CASES)
def test_the_whole_op_runs_quantized_on_tosa(name):
    module, shape = CASES[name]
    torch.manual_seed(0)
    assert_quantized_close(module.eval(), (torch.randn(shape),), max_lsb=1.0)


class ClampByTensors(torch.nn.Module):
    """Bounds broadcast against the input, each quantized with parameters of its own."""

    def forward(self, x, low, high):
        return torch.clamp(x, min=low, max=high), torch.clamp(x, min=low), torch.clamp(x, max=high)


def test_clamp_by_tensors_runs_quantized_on_tosa():
    torch.manual_seed(3)
    inputs = (torch.randn(2, 3, 4, 5), torch.randn(3, 1, 1) * 0.3 - 0.5, torch.randn(5) * 0.3 + 0.5)
    assert_quantized_close(ClampByTensors(), inputs, max_lsb=1.0)
