"""sum (TOSA REDUCE_SUM; on INT in int32 with one RESCALE, 1 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "sum" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import INT16, INT16_ONE_LSB, quantized_input, quantized_inputs, reduction_cases


def test_fp():
    run = reduction_cases("sum", nan_dim=1, float16_dim=-1).assert_close_to_torch()
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


def test_int32_stays_on_cpu():
    ints = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    (reason,) = [reason for op, reason in cpu_ops(lambda x: x.sum(1), (ints,)) if op.startswith("aten.sum")]
    assert "dtype torch.int32 is not supported" in reason


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x, y: (x.sum(), y.sum((0, 2), keepdim=True)), [(7,), (3, 5, 6)]),
        (lambda x, y: (x.sum(-2), y.sum(-1, keepdim=True)), [(2, 3, 4, 5, 3), (2, 4096)]),
    ],
    ids=["rank1_rank3_negative_dims", "rank5_4096_elements"],
)
def test_int8(fn, shapes):
    run = assert_quantized_close(Fn(fn), quantized_inputs(*shapes))
    assert "REDUCE_SUM" in tosa_ops(run)


def test_int16():
    """int16 accumulates in int48, narrowed to int32 exactly."""
    _x, y = quantized_inputs((2, 3, 8, 9), (2, 33, 5))
    assert_quantized_close(Fn(lambda y: y.sum(-1)), (y,), INT16, max_lsb=INT16_ONE_LSB)


def test_int16_sums_that_could_overflow_int32_stay_on_cpu():
    report = compile_model(Fn(lambda x: x.sum(-1)), (quantized_input(2, 70000),), INT16, quantize=True).report
    reasons = {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}
    assert (
        reasons["aten.sum.dim_IntList"]
        == "the reduction adds 70000 int16 values, which can overflow the int32 accumulator"
    )
