"""amax (TOSA REDUCE_MAX; on INT the integers move unchanged, 0 LSB).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "amax" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.partition_report import tosa_ops
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import (
    INT16,
    float16_input,
    multi_dim_cases,
    nan_input,
    quantized_input,
    whole_tensor_input,
)


def test_fp():
    cases = multi_dim_cases({"amax": lambda x, dim, keepdim: x.amax(dim, keepdim=keepdim)})
    cases.add("amax()", lambda x: x.amax(), whole_tensor_input())
    cases.add("amax(1) of NaN", lambda x: x.amax(1), nan_input())
    cases.add("amax(1) of float16", lambda x: x.amax(1), float16_input(), atol=2e-3, rtol=1e-3)
    cases.assert_close_to_torch()


def test_empty_input_stays_on_cpu_with_a_reason():
    (reason,) = [r for op, r in cpu_ops(lambda x: x.amax(1), (torch.randn(0, 4),)) if op.startswith("aten.amax")]
    assert reason == "input has no elements (TOSA tensors cannot be empty)"


def test_int8_is_exact():
    run = assert_quantized_close(Fn(lambda x: x.amax(-1)), (quantized_input(3, 4, 5),), max_lsb=0)
    assert "RESCALE" not in tosa_ops(run)


def test_int16_is_exact():
    run = assert_quantized_close(Fn(lambda x: x.amax((1, 3))), (quantized_input(2, 3, 8, 9),), INT16, max_lsb=0)
    assert run.result.report["partitions"][0]["inputs"][0]["dtype"] == "int16"
