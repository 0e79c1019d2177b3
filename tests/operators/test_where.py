"""where and masked_fill (TOSA SELECT; composed exactly for int32 without the INT profile).

INT: where's branches and result share parameters, so SELECT moves the integers; a
number branch becomes a constant quantized with them (masked_fill is quantized as the
where it is).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "where" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import rank0_operands
from etarm.testing.comparison_checks import (
    QUANTIZED_TARGETS,
    comparison_cases,
    int32_edge_operands,
    mixed_dtype_operands,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    cases = comparison_cases(
        {
            "where": lambda a, b: torch.where(a > b, a, b),
            "where_scalar": lambda a, b: torch.where(a > 0, a, 0.0),
            "masked_fill": lambda a, b: a.masked_fill(b > 0, -1.0),
            "masked_fill_tensor": lambda a, b: a.masked_fill(b > 0, torch.tensor(2.5)),
        }
    )
    cases.add("where_promotes", lambda x, y: torch.where(y > 0, x, y), *mixed_dtype_operands())
    cases.add("rank-0 where", lambda a, b: torch.where(a > b, a, 0.0), *rank0_operands())
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32(target):
    fns = {"where": lambda x, y: torch.where(x > y, x, y), "where_scalar": lambda x, y: torch.where(x < y, x, -7)}
    assert_each_close_to_torch(fns, int32_edge_operands(), target=target)


@pytest.mark.parametrize("target", QUANTIZED_TARGETS)
def test_quantized_tensors_and_numbers(target):
    torch.manual_seed(34)
    fn = lambda x, y: (  # noqa: E731
        torch.where(x > y, x, y * 2),
        torch.where(x > 0, x, 0.5),
        torch.where(y < 0.2, -1.0, y),
        torch.where(x > 0.1, 0.25, -0.25) + y,
    )
    run = assert_quantized_close(Fn(fn), (torch.randn(2, 3, 4), torch.randn(3, 4)), target=target, max_lsb=1)
    assert run.lsb_errors()[:3] == [0, 0, 0]  # the last adds: its RESCALE may round


@pytest.mark.parametrize("target", QUANTIZED_TARGETS)
def test_quantized_masked_fill(target):
    """masked_fill with a number and a 0-d tensor, and an attention mask before a softmax."""
    torch.manual_seed(37)
    fn = lambda x, y: (  # noqa: E731
        x.masked_fill(y > 0.5, 0.0),
        torch.softmax(x.masked_fill(y < 0.3, -1e4), dim=-1),  # an attention mask
        x.masked_fill(y > 0.7, torch.tensor(-0.5)),
    )
    run = assert_quantized_close(Fn(fn), (torch.randn(3, 8), torch.rand(3, 8)), target=target, max_lsb=1)
    errors = run.lsb_errors()
    assert errors[0] == errors[2] == 0
