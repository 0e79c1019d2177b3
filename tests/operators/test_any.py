"""any: of bools and of floats (NaN and non-zero are true), over dims or the whole tensor.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "any" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.packed_cases import Cases
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.reduction_checks import quantized_input


def test_fp():
    torch.manual_seed(5)
    flags = torch.randn(2, 3, 4, 5) > 1.0
    cases = Cases()
    cases.add("any()", lambda b: b.any(), flags)
    cases.add("any(-1)", lambda b: b.any(-1), flags)
    cases.add("any(1, keepdim)", lambda b: b.any(1, keepdim=True), flags)
    cases.add("any((0, 2))", lambda b: torch.any(b, dim=(0, 2)), flags)
    cases.add("any((1, 3), keepdim)", lambda b: torch.any(b, dim=(1, 3), keepdim=True), flags)
    # Floats: NaN and non-zero count as true.
    x = torch.tensor([[0.0, 0.0, 0.0], [0.0, float("nan"), 0.0], [0.0, -0.0, 2.5]])
    cases.add("any(1) of floats", lambda x: x.any(1), x)
    cases.add("any() of floats", lambda x: x.any(), x)
    cases.assert_close_to_torch()


def test_int_bool_input():
    assert_quantized_close(Fn(lambda m: (m.any(1), m.any())), (quantized_input(3, 4, 5) > 1.0,), max_lsb=0)


def test_int_float_input_stays_on_cpu():
    report = compile_model(Fn(lambda x: x.any(0)), (quantized_input(3, 4),), "TOSA-1.0+INT", quantize=True).report
    reasons = {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}
    assert reasons["aten.any.dim"] == "input dtype torch.float32 is not supported on the INT profile (bool only)"
