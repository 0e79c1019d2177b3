"""add (TOSA ADD), with broadcasting, scalars and alpha.

INT: 1 LSB, the rounding of the int32 rescales (python/etarm/testing/binary_checks.py).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "add" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    arithmetic_checks,
    arithmetic_operands,
    assert_int8_scalar_and_alpha,
    assert_scalar_operand_close,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.extension_floats import assert_extension_float_close, assert_needs_extension, assert_not_lowered

ARITHMETIC = arithmetic_checks(torch.add, "ADD", alpha=2.5)


@pytest.mark.parametrize("check", ARITHMETIC.values(), ids=ARITHMETIC)
def test_arithmetic(check):
    check()


def test_scalar_operand():
    assert_scalar_operand_close(lambda x: x + 3.0)


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


# --- bf16 (TOSA-1.0+FP+bf16): ADD with a broadcast and a scalar; fp8 has no ADD ---


def test_bf16_add():
    gen = torch.Generator().manual_seed(14)
    a, b = (torch.rand(2, 3, 4, generator=gen) * 4 - 2).bfloat16(), (torch.rand(3, 1, generator=gen) * 4 - 2).bfloat16()
    assert_extension_float_close(Fn(lambda x, y: x + y + 0.75), (a, b), torch.bfloat16, scale=4.0)


def test_bf16_add_needs_the_extension():
    a = torch.ones(2, 3).bfloat16()
    assert_needs_extension(Fn(lambda x, y: x + y), (a, a), torch.bfloat16, "aten.add.Tensor")


def test_fp8_add_is_not_lowered():
    a = torch.ones(2, 3).to(torch.float8_e5m2)
    assert_not_lowered(Fn(lambda x, y: x + y), (a, a), torch.float8_e5m2, "aten.add.Tensor")
