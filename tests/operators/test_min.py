"""min: of a whole tensor, and along a dim (values and indices: TOSA REDUCE_MIN and ARGMAX of the negation).

INT: the values move unchanged (0 LSB) and the indices match exactly, the first of ties
winning as in torch.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "min" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest

from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, assert_quantized_indices, extremum_cases, quantized_input


def test_fp():
    extremum_cases("min").assert_close_to_torch()


def test_int8_values_are_exact():
    fn = lambda x: (x.min(), x.min(dim=-2, keepdim=True)[0])  # noqa: E731
    run = assert_quantized_close(Fn(fn), (quantized_input(3, 4, 5),), max_lsb=0)
    assert "RESCALE" not in tosa_ops(run)


def _indices(x):
    values, indices = x.min(-1)  # both results used: the values feed an argmax
    return indices, values.argmax(0)


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(_indices, target)
