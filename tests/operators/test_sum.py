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
from etarm.testing.extension_floats import assert_extension_float_close, assert_needs_extension, assert_not_lowered


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


# --- bf16 (TOSA-1.0+FP+bf16: REDUCE_SUM, accumulated in FP32 as torch does); fp8 has no REDUCE_SUM ---


@pytest.mark.parametrize("dims, keepdim", [((1,), False), ((0, 2), True), (None, False)])
def test_bf16_sum(dims, keepdim):
    x = (torch.rand(3, 4, 5, generator=torch.Generator().manual_seed(16)) * 2 - 1).bfloat16()
    fn = Fn(lambda t: t.sum() if dims is None else t.sum(dim=dims, keepdim=keepdim))
    assert_extension_float_close(fn, (x,), torch.bfloat16, scale=8.0)


def test_bf16_sum_needs_the_extension():
    assert_needs_extension(Fn(lambda t: t.sum(1)), (torch.ones(2, 3).bfloat16(),), torch.bfloat16, "aten.sum.dim_IntList")


def test_fp8_sum_is_not_lowered():
    x = torch.ones(2, 3).to(torch.float8_e4m3fn)
    assert_not_lowered(Fn(lambda t: t.sum(1)), (x,), torch.float8_e4m3fn, "aten.sum.dim_IntList")
