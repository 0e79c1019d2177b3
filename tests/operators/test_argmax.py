"""argmax (TOSA ARGMAX; int32 indices, where torch's are int64).

INT: the indices match exactly, the first of ties winning as in torch; int8/int16 data is
searched as integers.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "argmax" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.testing.many_ops import assert_each_exact
from etarm.testing.reduction_checks import INT16, assert_quantized_indices, index_cases


def test_fp():
    run = index_cases("argmax").assert_close_to_torch()
    assert "ARGMAX" in run.result.report["partitions"][0]["tosa_ops"]


def test_int32_stays_on_cpu():
    ints = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    (reason,) = [reason for op, reason in cpu_ops(lambda x: x.argmax(1), (ints,)) if op.startswith("aten.argmax")]
    assert "dtype torch.int32 is not supported" in reason


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16])
def test_integer_data(dtype):
    """int8/int16 data (not quantized) is searched as integers on the INT profile; ties pick the first."""
    torch.manual_seed(4)
    x = torch.randint(-100, 100, (3, 10), dtype=dtype)
    x[1, 3] = x[1, 7] = 120
    fns = {"flat": lambda t: t.argmax(), "rows": lambda t: t.argmax(1), "cols": lambda t: t.argmin(0, keepdim=True)}
    assert_each_exact(fns, (x,), "TOSA-1.0+INT")


def test_integer_data_needs_the_int_profile():
    x = torch.randint(-100, 100, (10,), dtype=torch.int8)
    (reason,) = [reason for op, reason in cpu_ops(lambda t: t.argmax(), (x,)) if op.startswith("aten.argmax")]
    assert reason == "input dtype torch.int8 needs the TOSA INT profile"


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_indices_are_exact(target):
    assert_quantized_indices(lambda x: (x.argmax(1), x.argmax()), target)


# --- the FP extensions' floats: ARGMAX takes bf16 and fp8 ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("shape, dim", [((9,), None), ((3, 7), -1), ((2, 5, 4), 1)], ids=["rank1", "last", "middle"])
def test_extension_float_argmax(dtype, shape, dim):
    x = (torch.randn(shape, generator=torch.Generator().manual_seed(len(shape))) * 3).to(dtype)
    assert_extension_float_close(Fn(lambda t: torch.argmax(t, dim)), (x,), dtype)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_argmax_ties_pick_the_first(dtype):
    """Values equal once rounded to the format: the first of them wins, as in torch."""
    x = torch.tensor([[0.5, 2.0, 2.0, -1.0], [3.0, 3.0, 3.0, 3.0]]).to(dtype)
    assert_extension_float_close(Fn(lambda t: torch.argmax(t, -1)), (x,), dtype)


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_argmax_needs_its_extension(dtype):
    assert_needs_extension(
        Fn(lambda t: torch.argmax(t, -1)), (torch.ones(2, 3).to(dtype),), dtype, "aten.argmax.default"
    )
