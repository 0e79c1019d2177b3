"""select (TOSA SLICE and RESHAPE; exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "select" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn
from etarm.testing.data_movement_checks import exact_cases
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close


def test_fp():
    fns = {
        "first_axis": lambda x, v: x[1],
        "negative_index": lambda x, v: x[-1],
        "axis1": lambda x, v: x[:, 0],
        "axis1_negative": lambda x, v: x[:, -2],
        "last_axis": lambda x, v: x[..., 4],
        "negative_dim_and_index": lambda x, v: x.select(-1, -5),
        "two_axes": lambda x, v: x[2, 3],
        "to_0d": lambda x, v: v[3],
        "to_0d_negative": lambda x, v: v[-1],
    }
    exact_cases(fns, torch.randn(3, 4, 5), torch.randn(5)).assert_close_to_torch()


# --- torch.select_copy itself (a model calling it traces to aten.select_copy, which the
# quantizer annotates as it does select: issue 17 found it left unquantized) ---

SELECT_COPIES = {
    "rank1": ((7,), 0, 3),
    "rank1_negative": ((7,), -1, -1),
    "rank5_negative_dim": ((2, 3, 4, 2, 5), -2, 1),
    "rank5_first": ((2, 3, 4, 2, 5), 0, -1),
    "size1_axis": ((1, 1, 6), -3, 0),
}


@pytest.mark.parametrize("name", SELECT_COPIES)
def test_quantized_select_copy(name):
    shape, dim, index = SELECT_COPIES[name]
    x = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape) + dim))
    fn = Fn(lambda t: torch.select_copy(t, dim, index))
    assert_quantized_close(fn, (x,), max_lsb=0)
    assert_quantized_close(fn, (x,), target="TOSA-1.0+INT+int16", max_lsb=0)
    assert_all_on_npu(fn, (x,), "ethos-u55-128")
