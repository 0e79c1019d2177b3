"""var (with a correction).

INT: exact deviations, squares summed with a rounding shift sized for the row; only the
final RESCALE rounds: 1 LSB. Every partition is also compiled by Vela.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "var" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn, cpu_ops
from etarm.testing.quantized_composites import INT8, INT16, check_with_vela, seeded
from etarm.testing.reduction_checks import float16_input, multi_dim_cases, whole_tensor_input


def test_fp():
    cases = multi_dim_cases(
        {
            "var0": lambda x, dim, keepdim: x.var(dim, keepdim=keepdim, correction=0),
            "var1": lambda x, dim, keepdim: x.var(dim, keepdim=keepdim),
        }
    )
    cases.add("var()", lambda x: x.var(), whole_tensor_input())
    cases.add("var(1) of float16", lambda x: x.var(1), float16_input(), atol=2e-3, rtol=1e-3)
    run = cases.assert_close_to_torch()
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


def test_variance_without_degrees_of_freedom_stays_on_cpu():
    (reason,) = [r for op, r in cpu_ops(lambda x: x.var(1), (torch.randn(3, 1),)) if op.startswith("aten.var")]
    assert "correction=1 leaves no degrees of freedom" in reason


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    """correction 1 (default) and 0, keepdim, several dims."""
    fn = lambda a, b: (torch.var(a, 1), torch.var(b, (0, 2), correction=0, keepdim=True))  # noqa: E731
    check_with_vela(Fn(fn), (seeded(3, 9, scale=5.0), seeded(3, 4, 5)), target, tmp_path)


def test_rows_too_long_stay_on_cpu():
    """int16 rows of 20000 values: N x (range of 65534) passes 2**30."""
    result = compile_model(Fn(lambda x: torch.var(x, -1)), (seeded(2, 20000),), INT16, quantize=True)
    (reason,) = [entry["reason"] for entry in result.report["cpu_ops"] if entry["op"] == "aten.var.correction"]
    assert "rows of 20000 values are too long for the integer statistics" in reason
