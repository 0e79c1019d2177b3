"""Comparisons, isnan / isinf, where / masked_fill, logical_*, bitwise_* and shifts.

On the FP profile: float comparisons, bool logic and bitwise ops on bools, int32
comparisons and where (composed exactly when the INT profile is absent), int32 left
shifts and constant right shifts (as floor division). BITWISE_* on integers and
right shifts by a tensor need the INT profile (TOSA 1.0), tested with TOSA-1.0+FP+INT.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.many_ops import assert_each_close_to_torch

TENSOR_COMPARISONS = {
    "eq": torch.eq,
    "ne": torch.ne,
    "gt": torch.gt,
    "ge": torch.ge,
    "lt": torch.lt,
    "le": torch.le,
}

COMPARISONS = {
    **TENSOR_COMPARISONS,
    "eq_scalar": lambda a, b: a == 0.5,
    "ne_scalar": lambda a, b: a != 0.5,
    "gt_scalar": lambda a, b: a > 0.0,
    "ge_scalar": lambda a, b: a >= -1.0,
    "lt_scalar": lambda a, b: a < 1.0,
    "le_scalar": lambda a, b: a <= 0.5,
    "where": lambda a, b: torch.where(a > b, a, b),
    "where_scalar": lambda a, b: torch.where(a > 0, a, 0.0),
    "masked_fill": lambda a, b: a.masked_fill(b > 0, -1.0),
    "masked_fill_tensor": lambda a, b: a.masked_fill(b > 0, torch.tensor(2.5)),
    "logical_and": lambda a, b: torch.logical_and(a > 0, b > 0),
    "logical_or_float": lambda a, b: torch.logical_or(a, b),
    "logical_xor": lambda a, b: torch.logical_xor(a > 0, b),
    "logical_not": lambda a, b: torch.logical_not(a),
    "bitwise_and_bool": lambda a, b: (a > 0) & (b > 0),
    "bitwise_or_bool": lambda a, b: (a > 0) | (b > 0),
    "bitwise_xor_bool": lambda a, b: (a > 0) ^ (b > 0),
    "bitwise_not_bool": lambda a, b: ~(a > 0),
    "eq_bool": lambda a, b: (a > 0) == (b > 0),
    "ne_bool": lambda a, b: (a > 0) != (b > 0),
    "isnan": lambda a, b: torch.isnan(a),
    "isinf": lambda a, b: torch.isinf(b),
}

SHAPES = [((7,), (7,)), ((2, 1, 4), (3, 1)), ((1, 2, 3, 2, 3), (2, 1, 1, 3))]
SPECIAL = [0.0, -0.0, 0.5, -1.0, 1.0, float("inf"), -float("inf"), float("nan")]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_comparisons_and_logic_random(shapes):
    torch.manual_seed(len(shapes[0]))
    # Round to halves so equal elements (and == 0.5) occur.
    a, b = (torch.round(torch.randn(s) * 2) / 2 for s in shapes)
    assert_each_close_to_torch(COMPARISONS, (a, b))


def test_comparisons_edge_values():
    # Every pair of +-0, +-inf and NaN (NaN compares unequal to everything, ne is true).
    values = torch.tensor(SPECIAL)
    assert_each_close_to_torch(COMPARISONS, (values.reshape(-1, 1), values.reshape(1, -1)))


def test_mixed_dtypes_are_promoted():
    a = torch.tensor([[1, -2, 3]], dtype=torch.int32)
    b = torch.tensor([[0.5], [1.0], [-2.0]])
    fns = {
        "gt_int_float": lambda x, y: x > y,
        "eq_int_float_scalar": lambda x, y: x == 1.0,
        "where_promotes": lambda x, y: torch.where(y > 0, x, y),
        "logical_and_int": lambda x, y: torch.logical_and(x, y),
    }
    assert_each_close_to_torch(fns, (a, b))


def test_integer_shifts_on_fp_profile():
    x = torch.tensor([[-2147483647, -1000, -7, -1, 0, 1, 7, 1000, 2147483647]], dtype=torch.int32)
    s = torch.tensor([[0], [1], [5], [30]], dtype=torch.int32)
    fns = {
        "lshift_scalar": lambda a, b: a << 3,
        "lshift_tensor": lambda a, b: a << b,
        "bitwise_left_shift": torch.bitwise_left_shift,
        "rshift_scalar": lambda a, b: a >> 3,
        "rshift_1": lambda a, b: a >> 1,
        "rshift_31": lambda a, b: a >> 31,
        "bitwise_right_shift_scalar": lambda a, b: torch.bitwise_right_shift(a, 4),
    }
    assert_each_close_to_torch(fns, (x, s))


INT32_EDGES = [-2147483647, -2147483646, -2147483520, -1, 0, 1, 16777216, 16777217, 2147483519, 2147483520, 2147483647]


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_comparisons_and_where(target):
    # INT profile: EQUAL/GREATER/SELECT natively; FP alone: composed exactly (int_math), also
    # for neighbours near the int32 limits that float32 cannot tell apart.
    values = torch.tensor(INT32_EDGES, dtype=torch.int32)
    a, b = values.reshape(-1, 1), values.reshape(1, -1)
    fns = {
        **TENSOR_COMPARISONS,
        "eq_scalar": lambda x, y: x == 16777217,
        "gt_scalar": lambda x, y: x > 16777216,
        "where": lambda x, y: torch.where(x > y, x, y),
        "where_scalar": lambda x, y: torch.where(x < y, x, -7),
    }
    assert_each_close_to_torch(fns, (a, b), target=target)


def test_integer_bitwise_ops_with_int_profile():
    torch.manual_seed(8)
    a = torch.randint(-50, 50, (3, 5), dtype=torch.int32)
    b = torch.randint(-50, 50, (5,), dtype=torch.int32)
    s = torch.randint(0, 31, (3, 5), dtype=torch.int32)
    fns = {
        "bitwise_and": lambda x, y, z: x & y,
        "bitwise_or_scalar": lambda x, y, z: x | 12,
        "bitwise_xor": lambda x, y, z: x ^ y,
        "bitwise_not": lambda x, y, z: ~x,
        "rshift_tensor": lambda x, y, z: x >> z,
        "bitwise_right_shift": lambda x, y, z: torch.bitwise_right_shift(x, z),
    }
    assert_each_close_to_torch(fns, (a, b, s), target="TOSA-1.0+FP+INT")


def test_unsupported_configurations_stay_on_cpu():
    a, b = torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([3, 2, 1], dtype=torch.int32)
    reasons = cpu_reasons(lambda x, y: x & y, (a, b))
    assert any("aten.bitwise_and.Tensor on torch.int32 needs the TOSA INT profile" in r for r in reasons), reasons
    reasons = cpu_reasons(lambda x, y: x >> y, (a, b))
    assert any("only int32 shifted by a constant is supported" in r for r in reasons), reasons
    reasons = cpu_reasons(lambda x, y: x << 40, (a, b), target="TOSA-1.0+FP+INT")
    assert any("shift amount 40 is outside [0, 31]" in r for r in reasons), reasons
    reasons = cpu_reasons(lambda x, y: (x > 0) > (y > 0), (torch.randn(3), torch.randn(3)))
    assert any("aten.gt.Tensor does not support data type torch.bool" in r for r in reasons), reasons
