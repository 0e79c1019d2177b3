"""index_put (``x[idx] = v``, ``x[:, idx] += v``): TOSA SCATTER, or a one-hot product when
accumulating (float), against torch; quantized on the host runtime against the quantized model."""

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.runtime import Program
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.tosa_reference import assert_close_to_torch


class IndexPut(torch.nn.Module):
    def __init__(self, axis: int, accumulate: bool, constant_index=None):
        super().__init__()
        self.axis, self.accumulate, self.constant_index = axis, accumulate, constant_index

    def forward(self, x, index, values):
        if self.constant_index is not None:
            index = torch.tensor(self.constant_index)
        return torch.ops.aten.index_put.default(x, [None] * self.axis + [index], values, self.accumulate)


def operands(axis, index, values_shape=None):
    torch.manual_seed(axis + len(index))
    x = torch.randn(4, 5, 3)
    indexed = list(x.shape)
    indexed[axis] = len(index)
    return x, torch.tensor(index), torch.randn(values_shape or indexed)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("accumulate", [False, True])
def test_fp_computed_indices(axis, accumulate):
    index = [2, 2, -1] if accumulate else [1, 0, -1]  # repeats add up when accumulating
    assert_close_to_torch(IndexPut(axis, accumulate), operands(axis, index), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("accumulate", [False, True])
def test_fp_constant_indices_and_broadcast_values(accumulate):
    module = IndexPut(1, accumulate, constant_index=[3, -4, 3] if accumulate else [3, 0, -1])
    assert_close_to_torch(module, operands(1, [0, 0, 0], values_shape=(3, 1)), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("axis", [0, 1])
def test_int8_scatter_matches_the_quantized_model(axis):
    inputs = operands(axis, [3, 0, 1])
    result = compile_model(IndexPut(axis, False), inputs, "TOSA-1.0+INT", quantize=True)
    assert any("index_put" in op for p in result.report["partitions"] for op in p["aten_ops"])
    got = Program(result.pte).run(list(inputs)).outputs[0]
    np.testing.assert_array_equal(got, result.quantized_model(*inputs).numpy())


def test_what_stays_on_cpu_says_why():
    x, index, values = operands(0, [1, 2, 0])
    two = lambda x, i, v: torch.ops.aten.index_put.default(x, [i, i], v[:, 0], False)  # noqa: E731
    assert any("only a single index tensor" in r for r in cpu_reasons(two, (x, index, values)))
    mask = lambda x, v: torch.ops.aten.index_put.default(x, [x > 0], v, False)  # noqa: E731
    assert any("boolean mask" in r for r in cpu_reasons(mask, (x, torch.tensor(1.0))))
    result = compile_model(IndexPut(0, True), (x, index, values), "TOSA-1.0+INT", quantize=True)
    reasons = [c["reason"] for c in result.report["cpu_ops"] if c["op"] == "aten.index_put.default"]
    assert any("accumulate=True is lowered for float tensors only" in r for r in reasons)
    u55 = compile_model(
        IndexPut(0, False, constant_index=[1, 2, 0]), (x, index, values), "ethos-u55-128", quantize=True
    )
    assert any(c["op"] == "aten.index_put.default" and "SCATTER" in c["reason"] for c in u55.report["cpu_ops"])
