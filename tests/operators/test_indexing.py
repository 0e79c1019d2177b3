"""Indexing ops (index_select, embedding, gather, single-tensor aten.index) lowered to TOSA
GATHER, on the TOSA reference model against torch eager.

Indices come three ways: constants in forward (lifted, then cloned), buffers, and graph
inputs (int64 inputs are narrowed to int32 before partitioning). Without the INT profile
computed indices are rearranged in fp32 (see operators/indexing.py), so inputs run under
both TOSA-1.0+FP and TOSA-1.0+FP+INT. Gathering is exact: the tolerance is zero.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import cpu_reason
from etarm.testing.many_ops import assert_each_exact

TARGETS = ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"]


def index_select_all_dims(x):
    """index_select along every axis (and its negative alias) with constant indices."""
    fns = {}
    for dim in range(x.dim()):
        size = x.shape[dim]
        fns[f"dim{dim}"] = lambda x, d=dim, n=size: x.index_select(d, torch.tensor([n - 1, 0, n // 2, n - 1]))
        fns[f"dim{dim - x.dim()}_scalar_index"] = lambda x, d=dim - x.dim(), n=size: x.index_select(d, torch.tensor(n // 2))
    return fns


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 1, 5), (2, 3, 1, 4), (1, 2, 3, 2, 3)], ids=str)
def test_index_select_constant_indices(shape):
    x = torch.randn(shape)
    assert_each_exact(index_select_all_dims(x), (x,))


class BufferIndices(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.tensor([2, 2, 0]))
        self.register_buffer("picks", torch.tensor([[0, 3], [1, 1]]))
        self.register_buffer("gather_index", torch.tensor([[[3, 0], [1, 1], [2, 0]]] * 2))
        self.embedding = torch.nn.Embedding(6, 5)

    def forward(self, x):
        return (
            x.index_select(1, self.rows),
            x[:, :, self.picks],
            torch.gather(x, 2, self.gather_index),
            self.embedding(self.picks),
        )


def test_buffer_indices():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    module = BufferIndices()
    fns = {f"out{i}": lambda x, i=i: module(x)[i] for i in range(4)}
    assert_each_exact(fns, (x,))


# Index inputs feed the indexing op directly: without the INT profile an int32 slice or
# view of the indices would stay on CPU (see test_data_movement.test_int32_data_needs_int_profile).


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_index_select_input_indices(target, index_dtype):
    x = torch.randn(2, 5, 3)
    index = torch.tensor([4, 0, 2, 2, 1], dtype=index_dtype)
    scalar_index = torch.tensor(1, dtype=index_dtype)
    fns = {
        "dim0_scalar_index": lambda x, i, s: x.index_select(0, s),
        "dim1": lambda x, i, s: x.index_select(1, i),
        "dim-2": lambda x, i, s: x.index_select(-2, i),
    }
    assert_each_exact(fns, (x, index, scalar_index), target)


@pytest.mark.parametrize("target", TARGETS)
def test_embedding_input_ids(target):
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


def test_embedding_module_constant_ids():
    torch.manual_seed(0)
    embedding = torch.nn.Embedding(7, 3)
    assert_each_exact({"lookup": lambda x: embedding(torch.tensor([[6, 0], [2, 2]])) * x}, (torch.randn(2, 2, 3),))


def gathers(x):
    """torch.gather along each axis with constant indices, index extents <= the input's."""
    fns = {}
    for dim in range(x.dim()):
        shape = [max(1, s - 1) for s in x.shape]
        shape[dim] = x.shape[dim] + 2
        index = torch.randint(0, x.shape[dim], shape, generator=torch.Generator().manual_seed(dim))
        fns[f"dim{dim}"] = lambda x, d=dim, i=index: torch.gather(x, d, i)
    fns["negative_dim"] = lambda x: torch.gather(x, -1, torch.zeros(x.shape[:-1] + (1,), dtype=torch.long))
    return fns


@pytest.mark.parametrize("shape", [(6,), (3, 4, 5), (2, 3, 1, 2, 3)], ids=str)
def test_gather_constant_indices(shape):
    x = torch.randn(shape)
    assert_each_exact(gathers(x), (x,))


@pytest.mark.parametrize("target", TARGETS)
def test_gather_input_indices(target):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    index = torch.randint(0, 4, (2, 3, 5))
    smaller = torch.randint(0, 3, (1, 4, 3))
    batch = torch.randint(0, 2, (2, 2, 3))
    fns = {
        "dim2": lambda x, i, s, b: torch.gather(x, 2, i),
        "dim1_smaller": lambda x, i, s, b: torch.gather(x, 1, s),
        "dim0": lambda x, i, s, b: torch.gather(x, 0, b),
    }
    assert_each_exact(fns, (x, index, smaller, batch), target)


def test_index_tensor_constant_indices():
    x = torch.randn(4, 5, 6)
    fns = {
        "leading": lambda x: x[torch.tensor([3, -1, 0])],
        "middle_2d": lambda x: x[:, torch.tensor([[1, -5], [4, 4]])],
        "last": lambda x: x[..., torch.tensor([-1, 0, 2])],
        "last_via_slices": lambda x: x[:, :, torch.tensor([5])],
    }
    assert_each_exact(fns, (x,))


@pytest.mark.parametrize("target", TARGETS)
def test_index_tensor_input_indices_wrap_negative(target):
    x = torch.randn(3, 5, 2)
    rows = torch.tensor([-1, 0, 2, -3])
    columns = torch.tensor([[4, -5], [-1, 0]])
    last = torch.tensor([-2, 1, -1])
    fns = {
        "axis0": lambda x, r, c, l: x[r],
        "axis1_2d": lambda x, r, c, l: x[:, c],
        "axis2": lambda x, r, c, l: x[..., l],
    }
    assert_each_exact(fns, (x, rows, columns, last), target)


def test_integer_values():
    x = torch.randint(-1000, 1000, (3, 4, 5), dtype=torch.int32)
    index = torch.tensor([[[2, 0]], [[1, 1]], [[0, 3]]])
    fns = {
        "index_select": lambda x, i: x.index_select(1, i.flatten()[:3]),
        "gather": lambda x, i: torch.gather(x, 2, i),
        "index": lambda x, i: x[-i[1, 0]],
        "embedding": lambda x, i: F.embedding(i[2], x[0]),
    }
    assert_each_exact(fns, (x, index), "TOSA-1.0+FP+INT")


def test_bool_values_stay_on_cpu():
    reason = cpu_reason(lambda x: x.index_select(0, torch.tensor([1, 0])), (torch.rand(2, 3) > 0.5,), "aten.index_select")
    assert reason == "input dtype torch.bool is not supported by TOSA GATHER"


def test_int_values_need_int_profile():
    x = torch.randint(0, 9, (4, 3), dtype=torch.int32)
    reason = cpu_reason(lambda x: x.index_select(0, torch.tensor([1, 0])), (x,), "aten.index_select")
    assert reason == "input dtype torch.int32 needs the TOSA INT profile, which TOSA-1.0+FP does not name"


def test_several_index_tensors_stay_on_cpu():
    reason = cpu_reason(lambda x: x[torch.tensor([0, 1]), torch.tensor([2, 0])], (torch.randn(3, 4),), "aten.index")
    assert reason == "indices: only a single index tensor is supported"
