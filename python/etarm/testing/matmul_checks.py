"""The seeded operands of the matrix products (tests/operators/test_<op>.py of mm, bmm,
matmul, addmm, linear, convolution) and the checks they share.

INT: int8 operands accumulate exactly in int32 and one RESCALE rounds the result: 1 LSB.
int16 activations x int8 weights (a16w8, TOSA-1.0+INT+int16): the int48 accumulator is
rescaled with a 16-bit multiplier, whose error moves values near full scale by up to one
more step: 2 LSB.
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import QuantizedRun, assert_quantized_close

INT16 = "TOSA-1.0+INT+int16"


def seeded_randn(*shapes, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """A standard normal tensor of each of ``shapes``, drawn in turn after ``torch.manual_seed(seed)``."""
    torch.manual_seed(seed)
    return tuple(torch.randn(shape) for shape in shapes)


def a16w8_operands() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The a16w8 operands of bmm, matmul and addmm, from one seed: a (2, 3, 4) and a (2, 4, 5)
    batch, a (4, 6) matrix and a (6,) vector (each test uses some of them)."""
    return seeded_randn((2, 3, 4), (2, 4, 5), (4, 6), (6,), seed=10)


def assert_int8_matmul(fn: Callable, inputs: tuple) -> QuantizedRun:
    """int8 ``fn`` of ``inputs`` (1 LSB): one MATMUL and one RESCALE."""
    run = assert_quantized_close(Fn(fn), inputs)
    assert tosa_ops(run).count("MATMUL") == 1 and tosa_ops(run).count("RESCALE") == 1, tosa_ops(run)
    return run


def assert_a16w8_matmul(fn: Callable, inputs: tuple) -> QuantizedRun:
    """``fn`` of ``inputs`` with int16 activations (2 LSB): one MATMUL."""
    run = assert_quantized_close(Fn(fn), inputs, target=INT16, max_lsb=2)
    assert tosa_ops(run).count("MATMUL") == 1, tosa_ops(run)
    return run
