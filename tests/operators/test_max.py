"""max: of a whole tensor, and along a dim (values and indices: TOSA REDUCE_MAX and ARGMAX).

INT: the values move unchanged (0 LSB) and the indices match exactly, the first of ties
winning as in torch.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "max" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, assert_quantized_indices, extremum_cases, quantized_input


def test_fp():
    extremum_cases("max").assert_close_to_torch()


def test_int8_values_are_exact():
    run = assert_quantized_close(Fn(lambda x: (x.max(), x.max(1)[0])), (quantized_input(3, 4, 5),), max_lsb=0)
    assert "RESCALE" not in tosa_ops(run)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(lambda x: x.max(0).indices, target)
