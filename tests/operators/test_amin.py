"""amin (TOSA REDUCE_MIN; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "amin" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

from etarm.testing.cpu_fallback import Fn
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, multi_dim_cases, nan_input, quantized_input


def test_fp():
    cases = multi_dim_cases({"amin": lambda x, dim, keepdim: x.amin(dim, keepdim=keepdim)})
    cases.add("amin(1) of NaN", lambda x: x.amin(1), nan_input())
    cases.assert_close_to_torch()


def test_int8_is_exact():
    run = assert_quantized_close(Fn(lambda x: x.amin((0, 2), keepdim=True)), (quantized_input(3, 4, 5),), max_lsb=0)
    assert "RESCALE" not in tosa_ops(run)


def test_int16_is_exact():
    run = assert_quantized_close(Fn(lambda x: x.amin(0)), (quantized_input(2, 3, 8, 9),), INT16, max_lsb=0)
    assert run.result.report["partitions"][0]["inputs"][0]["dtype"] == "int16"
