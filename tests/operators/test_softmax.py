"""softmax (aten._softmax), lowered whole.

FP: stable for extreme inputs (max subtracted); FP16 computes in FP32 and rounds once.

INT (lowering/integer_softmax.py): exps as 15-bit (int8 TABLE pairs) or 21-bit (int16
TABLE) mantissas with exponents, row sums that keep the bits below their grid, a Q29
reciprocal (Newton, ~2**-28; ~2**-25 from an int16 TABLE's guess and one step); int8
rows short enough for its bound take their exps with absolute precision instead (2**-15
of exp(0) each: one int16 TABLE with the int16 extension, else two int8 TABLEs). Only the
final RESCALE rounds to the output grid: 1 LSB. Every partition is also compiled by Vela.

Every target (FP, INT, Ethos-U55, Ethos-U85): the "softmax" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, INT16, check_with_vela, seeded
from etarm.testing.reduction_checks import float16_input, one_dim_cases

EXTREME = torch.tensor([[1e4, -1e4, 0.0, 3.0], [-float("inf"), 1.0, 2.0, -float("inf")], [88.0, 89.0, 90.0, 87.0]])


def test_fp():
    cases = one_dim_cases({"softmax": lambda x, dim, keepdim: x.softmax(dim)})
    cases.add("softmax(-1) of extreme values", lambda x: x.softmax(-1), EXTREME)
    cases.add("softmax(0) of extreme values", lambda x: x.softmax(0), EXTREME)
    cases.add("softmax(-1) of float16", lambda x: x.softmax(-1), float16_input(), atol=2e-3, rtol=1e-3)
    run = cases.assert_close_to_torch()
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    """dim last, not last, negative and first; ranks 2-4; fixed [0, 1] output range."""
    fn = lambda a, b, c: (  # noqa: E731
        torch.softmax(a, -1),
        torch.softmax(b, 1),
        torch.softmax(c, -1),
        torch.softmax(c * 0.25, 0),
    )
    run = check_with_vela(
        Fn(fn), (seeded(2, 9, scale=3.0), seeded(3, 5, 4), seeded(2, 3, 4, 6, scale=6.0)), target, tmp_path
    )
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert "RECIPROCAL" not in ops and "EXP" not in ops and "INTDIV" not in ops


@pytest.mark.parametrize(
    "target, cases",
    [(INT8, ((12, 3), (128, 3), (256, 4))), (INT16, ((12, 2), (256, 4)))],
    ids=["int8_table_pairs", "int16_table"],
)
def test_int8_short_rows(target, cases, tmp_path):
    """int8 softmax over rows whose bound ((N + 1) times an entry's rounding, per
    probability) stays under half an output step takes exps with absolute precision: from
    one int16 TABLE at exact entries where int16 look-ups are allowed (int16 extension;
    Ethos-U85), else from a pair of int8 TABLEs (two signed bytes; Ethos-U55); plus the
    reciprocal's guess. 256-value rows are past the bound and keep the byte-wise look-ups
    (mantissa pair + exponent); the int8 pairs' entries (exp(0) at 65407) take rows of up to
    254 (a conformer's 128 keys)."""
    quantizer = TOSAQuantizer(target).set_global(get_symmetric_quantization_config())
    npus = ("ethos-u85-256",) if target == INT16 else ("ethos-u55-128", "ethos-u85-256")
    softmax = Fn(lambda x: torch.softmax(x, -1))
    for row, tables in cases:
        run = check_with_vela(
            softmax, (seeded(6, row, scale=3.0),), target, tmp_path, ethos_u=npus, quantizer=quantizer
        )
        assert run.result.report["partitions"][0]["tosa_ops"].count("TABLE") == tables


def test_long_peaked_rows(tmp_path):
    """1000-wide rows dominated by one entry: the many tiny exps still count in the sum."""
    check_with_vela(Fn(lambda x: torch.softmax(x, -1)), (seeded(3, 1000, scale=4.0),), INT16, tmp_path)


def test_rows_too_long_stay_on_cpu():
    result = compile_model(Fn(lambda x: torch.softmax(x, -1)), (seeded(1, 70000),), INT8, quantize=True)
    (reason,) = [entry["reason"] for entry in result.report["cpu_ops"] if entry["op"] == "aten._softmax.default"]
    assert "has 70000 elements; the integer softmax sums at most 65536" in reason
