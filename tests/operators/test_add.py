"""add (TOSA ADD), with broadcasting, scalars and alpha.

INT: 1 LSB, the rounding of the int32 rescales (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "add" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    ARITHMETIC_SHAPES,
    arithmetic_operands,
    assert_a16w8_arithmetic,
    assert_alpha_close,
    assert_broadcast_close,
    assert_int8_scalar_and_alpha,
    assert_rank0_close,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize("shapes", ARITHMETIC_SHAPES, ids=str)
def test_broadcast(shapes):
    assert_broadcast_close(torch.add, shapes)


def test_rank0_operands():
    assert_rank0_close(torch.add)


def test_a16w8():
    assert_a16w8_arithmetic(torch.add, "ADD")


def test_alpha():
    assert_alpha_close(torch.add, 2.5)


def test_scalar_operand():
    assert_close_to_torch(Fn(lambda x: x + 3.0), (torch.randn(2, 3, 4),))


@pytest.mark.parametrize(
    "shapes, scales",
    [(((2, 3, 4), (2, 3, 4)), [1.0, 1.0]), (((1, 4, 1, 6), (3, 1, 5, 1)), [1.0, 8.0])],
    ids=["add", "add_bcast4d"],  # rank-4 broadcast, very different ranges
)
def test_int8(shapes, scales):
    assert_quantized_close(Fn(torch.add), arithmetic_operands(*shapes, scales=scales))


def test_int8_scalar_and_alpha():
    """A number operand becomes a quantized constant; alpha folds into the operand's scale."""
    assert_int8_scalar_and_alpha(lambda x, y: (x + 3.0, torch.add(x, y, alpha=0.25)))


def test_partition_io_are_int8_with_qparams():
    run = assert_quantized_close(Fn(torch.add), arithmetic_operands((3, 5), (3, 5), scales=[1.0, 4.0]))
    partition = run.result.report["partitions"][0]
    for entry in partition["inputs"] + partition["outputs"]:
        assert entry["dtype"] == "int8" and entry["qdtype"] == "int8"
        assert entry["scale"] > 0 and -128 <= entry["zero_point"] <= 127
    # The second input spans a 4x wider range: its scale is larger.
    assert partition["inputs"][1]["scale"] > 2 * partition["inputs"][0]["scale"]
