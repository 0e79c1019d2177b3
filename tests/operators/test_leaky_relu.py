"""leaky_relu (composed on FP; an int8 TABLE, the interpolated int16 TABLE on INT).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "leaky_relu" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.unary_checks import activation_cases, assert_int8_tables_exact, assert_int16_lookups


def test_fp():
    fns = {
        "leaky_relu": F.leaky_relu,
        "leaky_relu_0": lambda x: F.leaky_relu(x, 0.0),
        "leaky_relu_steep": lambda x: F.leaky_relu(x, 1.5),
        "leaky_relu_negative": lambda x: F.leaky_relu(x, -0.2),
    }
    activation_cases(fns).assert_close_to_torch()


def test_int8_table_is_exact():
    assert_int8_tables_exact(rank3={"leaky_relu": lambda x: F.leaky_relu(x, 0.2)})


def test_int16_interpolated_table():
    assert_int16_lookups({"leaky_relu": (lambda x: F.leaky_relu(x, 0.2), "TABLE", 2)})


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", "TOSA-1.0+INT+int16"])
@pytest.mark.parametrize("inplace", [False, True], ids=["functional", "inplace"])
def test_quantized_all_zero_calibration(target, inplace):
    """Calibrated on zeros only (a degenerate range): still quantized and delegated, and the
    zeros come back exactly (issue 17: 'input is not quantized')."""
    x = torch.zeros(2, 3, 4)
    fn = torch.nn.LeakyReLU(0.1, inplace=inplace)
    run = assert_quantized_close(fn, (x,), target=target, max_lsb=0)
    assert torch.equal(run.dequantized[0], torch.zeros(2, 3, 4))
    assert_all_on_npu(fn, (x,), "ethos-u55-128")
