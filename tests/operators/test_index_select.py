"""index_select (TOSA GATHER over the values seen as [outer, axis, inner]; exact).

Indices: constants in forward, buffers and graph inputs (python/etarm/testing/indexing_checks.py).
Every target (FP, INT, Ethos-U55, Ethos-U85): the "index_select" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reason
from etarm.testing.data_movement_checks import exact_cases
from etarm.testing.indexing_checks import TARGETS, Buffered, integer_values
from etarm.testing.many_ops import assert_each_exact
from etarm.testing.packed_cases import Cases
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close
from etarm.testing.cpu_fallback import Fn


def _all_dims(x):
    """index_select along every axis (and its negative alias) with constant indices."""
    fns = {}
    for dim in range(x.dim()):
        size = x.shape[dim]
        fns[f"dim{dim} {tuple(x.shape)}"] = lambda x, d=dim, n=size: x.index_select(
            d, torch.tensor([n - 1, 0, n // 2, n - 1])
        )
        fns[f"dim{dim - x.dim()}_scalar_index {tuple(x.shape)}"] = lambda x, d=dim - x.dim(), n=size: x.index_select(
            d, torch.tensor(n // 2)
        )
    return fns


def test_constant_indices():
    cases = Cases()
    for shape in [(7,), (3, 5), (2, 1, 5), (2, 3, 1, 4), (1, 2, 3, 2, 3)]:
        x = torch.randn(shape)
        exact_cases(_all_dims(x), x, cases=cases)
    cases.assert_close_to_torch()


def test_buffer_indices():
    torch.manual_seed(0)
    module = Buffered(lambda m, x: x.index_select(1, m.rows), rows=torch.tensor([2, 2, 0]))
    assert_each_exact({"index_select": module}, (torch.randn(2, 3, 4),))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_input_indices(target, index_dtype):
    x = torch.randn(2, 5, 3)
    index = torch.tensor([4, 0, 2, 2, 1], dtype=index_dtype)
    scalar_index = torch.tensor(1, dtype=index_dtype)
    fns = {
        "dim0_scalar_index": lambda x, i, s: x.index_select(0, s),
        "dim1": lambda x, i, s: x.index_select(1, i),
        "dim-2": lambda x, i, s: x.index_select(-2, i),
    }
    assert_each_exact(fns, (x, index, scalar_index), target)


def test_integer_values():
    assert_each_exact(
        {"index_select": lambda x, i: x.index_select(1, i.flatten()[:3])}, integer_values(), "TOSA-1.0+FP+INT"
    )


def test_bool_values_gather_as_int8():
    """GATHER has no bool form: bool values move as int8 (CASTs of the INT profile)."""
    mask, rows = torch.rand(4, 6, generator=torch.Generator().manual_seed(3)) > 0.5, torch.tensor([3, 0, 3, 1])
    fns = {
        "index_select": lambda m, i: m.index_select(0, i),
        "index": lambda m, i: m[:, i],
        "embedding_like": lambda m, i: m[i] & m[i.flip(0)],
    }
    run = assert_each_exact(fns, (mask, rows), "TOSA-1.0+FP+INT")
    assert "GATHER" in run.report["partitions"][0]["tosa_ops"]


def test_bool_values_need_int_profile():
    reason = cpu_reason(
        lambda x: x.index_select(0, torch.tensor([1, 0])), (torch.rand(2, 3) > 0.5,), "aten.index_select"
    )
    assert reason == "input dtype torch.bool needs the TOSA INT profile, which TOSA-1.0+FP does not name"


def test_int_values_need_int_profile():
    x = torch.randint(0, 9, (4, 3), dtype=torch.int32)
    reason = cpu_reason(lambda x: x.index_select(0, torch.tensor([1, 0])), (x,), "aten.index_select")
    assert reason == "input dtype torch.int32 needs the TOSA INT profile, which TOSA-1.0+FP does not name"


# --- the FP extensions' floats: GATHER moves bf16 and fp8 ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_index_select(dtype):
    x = (torch.rand(3, 5, 2, generator=torch.Generator().manual_seed(12)) * 4 - 2).to(dtype)
    indices = torch.tensor([4, 0, 0, 2])
    assert_extension_float_close(Fn(lambda t, i: t.index_select(1, i)), (x, indices), dtype)
