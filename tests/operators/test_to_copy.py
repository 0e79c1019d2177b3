"""dtype conversions (aten._to_copy / dim_order_ops._to_dim_order_copy): TOSA CAST, float
to int truncating; int -> int needs the INT profile.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "to_copy" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import rank0_operands
from etarm.testing.cpu_fallback import cpu_reasons
from etarm.testing.packed_cases import Cases
from etarm.testing.extension_floats import BF16_AND_FP8, assert_extension_float_close, assert_needs_extension
from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.compiler import compile_model


def test_fp():
    x = torch.tensor([-2.7, -2.5, -1.5, -0.5, -0.0, 0.0, 0.4, 0.5, 1.5, 2.5, 2.7, 1000.9, -1e6])
    fns = {
        "float_to_int32_truncates": lambda t: t.to(torch.int32),
        "float_to_int64": lambda t: t.long(),
        "float_to_bool": lambda t: t.bool(),
        "float_to_half": lambda t: t.half(),
        "half_to_float": lambda t: t.half().float(),
        "bool_to_float": lambda t: (t > 0).float(),
        "bool_to_int": lambda t: (t > 0).int(),
        "int_to_float": lambda t: t.int().float() * 0.5,
        "int_to_bool": lambda t: t.int().bool(),
        "int64_to_int32": lambda t: t.long().int(),
    }
    cases = Cases()
    for name, fn in fns.items():
        cases.add(name, fn, x)
    cases.add("rank-0 float_to_int32", lambda b: b.int(), rank0_operands()[1])
    cases.assert_close_to_torch()


def test_int_to_int_conversions_with_int_profile():
    x = torch.tensor([-100, -1, 0, 1, 100, 127], dtype=torch.int32)
    cases = Cases()
    cases.add("to_int8", lambda t: t.to(torch.int8), x).add("to_int16", lambda t: t.to(torch.int16), x)
    cases.add("to_bool", lambda t: t.bool(), x).assert_close_to_torch("TOSA-1.0+FP+INT")


def test_unsupported_conversions_stay_on_cpu():
    reasons = cpu_reasons(lambda t: t.to(torch.int8), (torch.tensor([1, 2, 3], dtype=torch.int32),))
    assert any("converting torch.int32 to torch.int8 needs the TOSA INT profile" in r for r in reasons), reasons
    reasons = cpu_reasons(lambda t: t.to(torch.bfloat16), (torch.randn(3),))
    assert any("on torch.bfloat16 needs the TOSA bf16 extension" in r for r in reasons), reasons


# --- the FP extensions' floats: CAST bf16 <-> floats and integers; fp8 <-> floats only ---


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
@pytest.mark.parametrize("other", [torch.float32, torch.float16])
def test_extension_float_casts(dtype, other):
    x = (torch.rand(3, 4, generator=torch.Generator().manual_seed(17)) * 6 - 3).to(other)
    there_and_back = Fn(lambda t: (t.to(dtype), t.to(dtype).to(other)))
    assert_extension_float_close(there_and_back, (x,), dtype, scale=4.0)


def test_bf16_to_int32_truncates():
    x = torch.tensor([[-2.5, -0.75, 0.0, 1.5, 7.0]]).bfloat16()
    assert_extension_float_close(Fn(lambda t: t.to(torch.int32)), (x,), torch.bfloat16)


def test_fp8_between_formats():
    x = torch.tensor([[-3.0, -0.3, 0.0, 0.7, 12.0]]).to(torch.float8_e4m3fn)
    run = assert_close_to_torch(Fn(lambda t: t.to(torch.float8_e5m2)), (x,), "TOSA-1.0+FP+fp8e4m3+fp8e5m2", atol=0, rtol=0)
    assert run.result.report["cpu_ops"] == []


def test_fp8_to_int_stays_on_cpu():
    x = torch.ones(2, 3).to(torch.float8_e4m3fn)
    report = compile_model(Fn(lambda t: t.to(torch.int32)), (x,), "TOSA-1.0+FP+INT+fp8e4m3").report
    assert "CASTs torch.float8_e4m3fn only to and from floats" in report["cpu_ops"][0]["reason"]


@pytest.mark.parametrize("dtype", BF16_AND_FP8)
def test_extension_float_cast_needs_its_extension(dtype):
    x = torch.ones(2, 3)
    assert_needs_extension(Fn(lambda t: t.to(dtype)), (x,), dtype, "dim_order_ops._to_dim_order_copy.default")
