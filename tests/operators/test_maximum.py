"""maximum (TOSA MAXIMUM), of floats and of int32 (exact near the int32 limits).

INT: with operands and result sharing their parameters (the quantizer's choice) the
integers are compared: exact, 0 LSB; with different parameters each operand is rescaled
to the output's first: 1 LSB.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "maximum" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    assert_extremum_of_independent_operands,
    binary_cases,
    division_edge_operands,
    extrema_operands,
    int32_extrema_operands,
    rank0_operands,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    cases = binary_cases({"maximum": torch.maximum})
    cases.add("maximum edge values", torch.maximum, *division_edge_operands())
    cases.add("maximum with a 0-d constant", lambda a: torch.maximum(a, torch.scalar_tensor(2.0)), rank0_operands()[0])
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_maximum(target):
    assert_each_close_to_torch({"max": torch.maximum}, int32_extrema_operands(), target=target)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"])
def test_shared_parameters_are_exact(target):
    fn = lambda a, b: (torch.maximum(a, b), torch.max(a, b * 2))  # noqa: E731
    run = assert_quantized_close(Fn(fn), extrema_operands(), target=target, max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"].count("MAXIMUM") == 2


def test_int8_different_parameters():
    assert_extremum_of_independent_operands(torch.maximum, "aten.maximum.default")
