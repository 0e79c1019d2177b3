"""gather (torch.gather: TOSA GATHER of single elements; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "gather" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.data_movement_checks import exact_cases
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.testing.indexing_checks import TARGETS, Buffered, integer_values
from etarm.testing.many_ops import assert_each_exact
from etarm.testing.packed_cases import Cases


def _gathers(x):
    """torch.gather along each axis with constant indices, index extents <= the input's."""
    fns = {}
    for dim in range(x.dim()):
        shape = [max(1, s - 1) for s in x.shape]
        shape[dim] = x.shape[dim] + 2
        index = torch.randint(0, x.shape[dim], shape, generator=torch.Generator().manual_seed(dim))
        fns[f"dim{dim} {tuple(x.shape)}"] = lambda x, d=dim, i=index: torch.gather(x, d, i)
    fns[f"negative_dim {tuple(x.shape)}"] = lambda x: torch.gather(
        x, -1, torch.zeros(x.shape[:-1] + (1,), dtype=torch.long)
    )
    return fns


def test_constant_indices():
    cases = Cases()
    for shape in [(6,), (3, 4, 5), (2, 3, 1, 2, 3)]:
        x = torch.randn(shape)
        exact_cases(_gathers(x), x, cases=cases)
    cases.assert_close_to_torch()


def test_buffer_indices():
    torch.manual_seed(0)
    index = torch.tensor([[[3, 0], [1, 1], [2, 0]]] * 2)
    module = Buffered(lambda m, x: torch.gather(x, 2, m.gather_index), gather_index=index)
    assert_each_exact({"gather": module}, (torch.randn(2, 3, 4),))


@pytest.mark.parametrize("target", TARGETS)
def test_input_indices(target):
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


def test_integer_values():
    assert_each_exact({"gather": lambda x, i: torch.gather(x, 2, i)}, integer_values(), "TOSA-1.0+FP+INT")


# --- the FP extensions' floats: GATHER moves bf16 and fp8 values ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_extension_float_gather(dtype, dim):
    gen = torch.Generator().manual_seed(dim + 5)
    x = (torch.randn(3, 4, 5, generator=gen) * 2).to(dtype)
    shape = [2, 3, 4]
    shape[dim] = 6
    index = torch.randint(0, x.shape[dim], shape, generator=gen)
    assert_extension_float_close(Fn(lambda t: torch.gather(t, dim, index)), (x,), dtype)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_gather_needs_its_extension(dtype):
    index = torch.tensor([[0, 1], [1, 0]])
    assert_needs_extension(
        Fn(lambda t: torch.gather(t, 1, index)), (torch.ones(2, 3).to(dtype),), dtype, "aten.gather.default"
    )
