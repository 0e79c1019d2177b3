"""embedding (TOSA GATHER of weight rows; padding_idx only matters for gradients; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "embedding" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.indexing_checks import TARGETS, Buffered, integer_values
from etarm.testing.many_ops import assert_each_exact
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension


@pytest.mark.parametrize("target", TARGETS)
def test_input_ids(target):
    torch.manual_seed(0)
    weight = torch.randn(10, 6)
    ids = torch.tensor([[1, 9, 0, 3], [3, 3, 8, 2], [0, 0, 1, 5]])
    row = torch.tensor([[7, 2, 2]])  # [1, W]: GATHER reads it as it is
    fns = {
        "ids_2d": lambda w, i, r: F.embedding(i, w),
        "ids_row": lambda w, i, r: F.embedding(r, w),
        "padding_idx": lambda w, i, r: F.embedding(i, w, padding_idx=0),
    }
    assert_each_exact(fns, (weight, ids, row), target)


def test_module_constant_ids():
    torch.manual_seed(0)
    embedding = torch.nn.Embedding(7, 3)
    assert_each_exact({"lookup": lambda x: embedding(torch.tensor([[6, 0], [2, 2]])) * x}, (torch.randn(2, 2, 3),))


def test_buffer_ids():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    module = Buffered(lambda m, x: m.embedding(m.picks), picks=torch.tensor([[0, 3], [1, 1]]))
    module.embedding = torch.nn.Embedding(6, 5)
    assert_each_exact({"embedding": module}, (x,))


def test_integer_values():
    assert_each_exact({"embedding": lambda x, i: F.embedding(i[2], x[0])}, integer_values(), "TOSA-1.0+FP+INT")


# --- the FP extensions' floats: GATHER moves bf16 and fp8 ---


class _Embedding(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        table = torch.rand(6, 4, generator=torch.Generator().manual_seed(10)) * 4 - 2
        self.table = torch.nn.Parameter(table.to(dtype), requires_grad=False)

    def forward(self, indices):
        return F.embedding(indices, self.table)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_embedding(dtype):
    indices = torch.tensor([[5, 0, 2], [2, 2, 1]])
    assert_extension_float_close(_Embedding(dtype), (indices,), dtype)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_embedding_needs_its_extension(dtype):
    assert_needs_extension(_Embedding(dtype), (torch.tensor([1, 3]),), dtype, "aten.embedding.default")
