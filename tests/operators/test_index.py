"""aten.index.Tensor: TOSA GATHER along the axis of one integer index tensor, or over the
offsets several index tensors combine into (advanced indexing, broadcast index tensors,
ellipsis); negative indices count from the end (exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "index" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reason
from etarm.testing.indexing_checks import TARGETS, Buffered, integer_values
from etarm.testing.many_ops import assert_each_exact


def test_constant_indices():
    x = torch.randn(4, 5, 6)
    fns = {
        "leading": lambda x: x[torch.tensor([3, -1, 0])],
        "middle_2d": lambda x: x[:, torch.tensor([[1, -5], [4, 4]])],
        "last": lambda x: x[..., torch.tensor([-1, 0, 2])],
        "last_via_slices": lambda x: x[:, :, torch.tensor([5])],
    }
    assert_each_exact(fns, (x,))


def test_buffer_indices():
    torch.manual_seed(0)
    module = Buffered(lambda m, x: x[:, :, m.picks], picks=torch.tensor([[0, 3], [1, 1]]))
    assert_each_exact({"index": module}, (torch.randn(2, 3, 4),))


@pytest.mark.parametrize("target", TARGETS)
def test_input_indices_wrap_negative(target):
    x = torch.randn(3, 5, 2)
    rows = torch.tensor([-1, 0, 2, -3])
    columns = torch.tensor([[4, -5], [-1, 0]])
    last = torch.tensor([-2, 1, -1])
    fns = {
        "axis0": lambda x, r, c, t: x[r],
        "axis1_2d": lambda x, r, c, t: x[:, c],
        "axis2": lambda x, r, c, t: x[..., t],
    }
    assert_each_exact(fns, (x, rows, columns, last), target)


def test_integer_values():
    assert_each_exact({"index": lambda x, i: x[-i[1, 0]]}, integer_values(), "TOSA-1.0+FP+INT")


def test_several_constant_index_tensors():
    x = torch.randn(4, 3, 5, 6)
    i, j = torch.tensor([0, 2, -1]), torch.tensor([[1], [-2]])
    fns = {
        "leading_pair": lambda x: x[i, torch.tensor([2, 0, 1])],
        "ellipsis_pair": lambda x: x[..., i, torch.tensor([5, 0, -6])],  # adjacent: in place
        "broadcast": lambda x: x[:, :, i, j],  # [2, 3] offsets
        "apart": lambda x: x[i, :, torch.tensor([4, 0, 1])],  # not adjacent: indexed dims first
    }
    assert_each_exact(fns, (x,))


@pytest.mark.parametrize("target", TARGETS)
def test_several_input_index_tensors(target):
    x = torch.randn(3, 4, 5, 2)
    rows, columns, depth = torch.tensor([-1, 0, 2, 1]), torch.tensor([[3], [-4], [1]]), torch.tensor([4, -5, 0, 2])
    fns = {
        "middle_pair": lambda x, r, c, d: x[:, c, d],  # broadcast to [3, 4]
        "three": lambda x, r, c, d: x[r, :, d],
        "all_but_last": lambda x, r, c, d: x[r, c, d],
    }
    assert_each_exact(fns, (x, rows, columns, depth), target)


def test_boolean_masks_stay_on_cpu():
    reason = cpu_reason(lambda x, m: x[m], (torch.randn(3, 4), torch.rand(3, 4) > 0.5), "aten.index")
    assert reason == "indices: boolean mask indexing is not supported"
