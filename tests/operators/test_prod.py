"""prod (TOSA REDUCE_PRODUCT, float only: FP profile).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "prod" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.testing.reduction_checks import one_dim_cases, quantized_input, whole_tensor_input


def test_fp():
    cases = one_dim_cases({"prod": lambda x, dim, keepdim: x.prod(dim, keepdim=keepdim)})
    cases.add("prod()", lambda x: x.prod(), whole_tensor_input())
    cases.assert_close_to_torch()


def test_int_stays_on_cpu():
    report = compile_model(Fn(lambda x: x.prod(1)), (quantized_input(3, 4),), "TOSA-1.0+INT", quantize=True).report
    reasons = {entry["op"]: entry["reason"] for entry in report["cpu_ops"]}
    assert (
        reasons["aten.prod.dim_int"] == "aten.prod.dim_int is not lowered for TOSA-1.0+INT"
    )  # float-only REDUCE_PRODUCT
