"""minimum (TOSA MINIMUM), of floats and of int32 (exact near the int32 limits).

INT: with operands and result sharing their parameters (the quantizer's choice) the
integers are compared: exact, 0 LSB; with different parameters each operand is rescaled
to the output's first: 1 LSB.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "minimum" rows of
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
    scalar_operand_input,
)
from etarm.testing.cpu_fallback import Fn
from etarm.testing.many_ops import assert_each_close_to_torch
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    cases = binary_cases({"minimum": torch.minimum})
    cases.add("minimum edge values", torch.minimum, *division_edge_operands())
    cases.add("min_scalar_tensor", lambda a: torch.minimum(a, torch.tensor(0.5)), scalar_operand_input())
    cases.assert_close_to_torch()


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+FP+INT"])
def test_int32_minimum(target):
    assert_each_close_to_torch({"min": torch.minimum}, int32_extrema_operands(), target=target)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"])
def test_shared_parameters_are_exact(target):
    run = assert_quantized_close(Fn(torch.minimum), extrema_operands(), target=target, max_lsb=0)
    assert run.result.report["partitions"][0]["tosa_ops"].count("MINIMUM") == 1


def test_int8_different_parameters():
    assert_extremum_of_independent_operands(torch.minimum, "aten.minimum.default")
