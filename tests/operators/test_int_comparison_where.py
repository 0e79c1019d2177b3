"""Comparisons, where, logical ops and constants of quantized models on the TOSA INT profile:
PT2E-quantized, run on the TOSA reference model, compared with the convert_pt2e'd model in
eager. Every result here is exact (0 LSB, equal bools):

- two tensors share their quantization parameters (the quantizer's choice), so their
  integers compare like their real values;
- a tensor and a number compare the integers with bounds found by dequantizing every
  integer of the type as the quantized model does (quantized_comparison.py), even where
  the number falls between two quantization steps or on one;
- where's branches and result share parameters, so SELECT moves the integers; a number
  branch becomes a constant quantized with them (masked_fill is quantized as the where it
  is);
- isnan / isinf of quantized values are false everywhere;
- a float constant (full, arange, ...) is stored quantized by torch's own quantize with the
  parameters its consumer reads it with.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close

TARGETS = ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"]


@pytest.mark.parametrize("target", TARGETS)
def test_comparisons_of_two_tensors(target):
    torch.manual_seed(31)
    fn = lambda a, b: (a > b, a >= b, a < b, a <= b, a == b, a != b)  # noqa: E731
    a = torch.randn(2, 3, 5)
    b = torch.where(torch.rand(3, 5) < 0.3, a[0], torch.randn(3, 5))  # some exact ties
    assert_quantized_close(Fn(fn), (a, b), target=target, max_lsb=0)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("number", [0.0, 0.3, -1.7, 5.0, -9.0], ids=["zero", "between", "negative", "above", "below"])
def test_comparisons_with_a_number(target, number):
    """The input takes every integer of its type, so each bound is checked where it lies."""
    fn = lambda x: (x > number, x >= number, x < number, x <= number, x == number, x != number)  # noqa: E731
    levels = 1 << (8 if target == "TOSA-1.0+INT" else 16)
    x = torch.linspace(-6, 6, 2 * levels).reshape(2, -1, 4)
    assert_quantized_close(Fn(fn), (x,), target=target, max_lsb=0)


def test_equality_with_a_representable_number():
    """relu's zero is an exact integer (the zero point): ``== 0`` holds on an interval of one."""
    torch.manual_seed(33)
    fn = lambda x: (torch.relu(x) == 0, torch.relu(x) != 0)  # noqa: E731
    assert_quantized_close(Fn(fn), (torch.randn(3, 8),), max_lsb=0)


@pytest.mark.parametrize("target", TARGETS)
def test_where_of_tensors_and_numbers(target):
    torch.manual_seed(34)
    fn = lambda x, y: (  # noqa: E731
        torch.where(x > y, x, y * 2),
        torch.where(x > 0, x, 0.5),
        torch.where(y < 0.2, -1.0, y),
        torch.where(x > 0.1, 0.25, -0.25) + y,
    )
    run = assert_quantized_close(Fn(fn), (torch.randn(2, 3, 4), torch.randn(3, 4)), target=target, max_lsb=1)
    assert run.lsb_errors()[:3] == [0, 0, 0]  # the last adds: its RESCALE may round


def test_logical_ops_of_comparisons():
    torch.manual_seed(35)
    fn = lambda x, y: torch.where(torch.logical_and(x > 0, torch.logical_not(y > x)), x, y)  # noqa: E731
    assert_quantized_close(Fn(fn), (torch.randn(5, 6), torch.randn(5, 6)), max_lsb=0)


def test_float_constants_are_stored_quantized():
    torch.manual_seed(36)
    fn = lambda x: (x + torch.full((4, 6), 0.75), x * torch.arange(6.0), torch.where(x > 0, x, torch.ones(6)))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(4, 6),), max_lsb=1)
    assert run.lsb_errors()[2] == 0


@pytest.mark.parametrize("target", TARGETS)
def test_masked_fill_and_finite_tests(target):
    torch.manual_seed(37)
    fn = lambda x, y: (  # noqa: E731
        x.masked_fill(y > 0.5, 0.0),
        torch.softmax(x.masked_fill(y < 0.3, -1e4), dim=-1),  # an attention mask
        x.masked_fill(y > 0.7, torch.tensor(-0.5)),
        torch.isnan(x),
        torch.isinf(y * 3),
    )
    run = assert_quantized_close(Fn(fn), (torch.randn(3, 8), torch.rand(3, 8)), target=target, max_lsb=1)
    errors = run.lsb_errors()
    assert errors[0] == errors[2] == errors[3] == errors[4] == 0
