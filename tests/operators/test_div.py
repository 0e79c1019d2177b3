"""div, with rounding modes, floor_divide and true_divide.

FP: float division is a * RECIPROCAL(b) (TOSA 1.0 has no float DIV): within ~1.5 ulp, so
quotients are compared at 1e-5. Integer division uses INTDIV with a floor correction
built from ops legal in both profiles.

INT: division by a tensor is INTDIV of the dividend shifted left (21 bits for int8, 15
for int16) by the divisor, then one RESCALE: the truncation costs under one output step
when the output range covers |a| / |b|, so 1 LSB; by a positive constant it is one
RESCALE (1 LSB), by a negative one a TABLE (0 LSB). Rounding divisions of two int8
tensors index a table of every pair of values (GATHER, exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "div" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.testing.binary_checks import (
    TWO_TENSOR_SHAPES,
    binary_cases,
    division_edge_operands,
    divisor,
    int32_division_operands,
    rank0_operands,
    scalar_operand_input,
    two_tensor_operands,
)
from etarm.compiler import compile_model
from etarm.ethosu.quantizer import EthosUQuantizer
from etarm.quantizer import get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn, cpu_reasons
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close

INT16 = "TOSA-1.0+INT+int16"


def test_fp():
    cases = binary_cases(
        {
            "div": torch.div,
            "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
            "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
            "floor_divide": torch.floor_divide,
        }
    )
    x = scalar_operand_input()
    cases.add("div_scalar", lambda a: a / 3.0, x)
    cases.add("rdiv", lambda a: 2.0 / a, x)
    cases.add("div_floor_scalar", lambda a: torch.div(a, 0.7, rounding_mode="floor"), x)
    cases.add("floor_divide_scalar", lambda a: a // 2.0, x)
    cases.add("div edge values", torch.div, *division_edge_operands())
    a, b = int32_division_operands()
    cases.add("int32 floor_divide", torch.floor_divide, a, b)
    cases.add("int32 div_trunc", lambda x, y: torch.div(x, y, rounding_mode="trunc"), a, b)
    cases.add("int32 true_div", torch.div, a, b)
    cases.add("int32 floor_divide_scalar", lambda x: x // -3, a)
    cases.add("rank-0 div", lambda a, b: a / b, *rank0_operands())
    cases.assert_close_to_torch()


def test_int8_division_stays_on_cpu_on_fp():
    a8, b8 = torch.tensor([7, -7], dtype=torch.int8), torch.tensor([2, 2], dtype=torch.int8)
    reasons = cpu_reasons(torch.floor_divide, (a8, b8))
    assert any("aten.div.Tensor_mode does not support data type torch.int8" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2, 3, 5), (3, 1)), ((7,), ()), ((1, 2, 1, 3, 2), (2, 1, 4, 1, 1))],
    ids=["rank3_by_rank2", "rank1_by_scalar", "rank5_broadcast"],
)
def test_int8_division(a_shape, b_shape):
    torch.manual_seed(len(a_shape) + len(b_shape))
    fn = lambda a, b: (a / b, a / 2.5, a / -0.75, torch.true_divide(a, b))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(a_shape) * 3, divisor(*b_shape)), max_lsb=1)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("INTDIV") == 2 and ops.count("TABLE") == 1, ops  # / 2.5 is a RESCALE alone
    assert run.lsb_errors()[2] == 0  # the negative constant's TABLE is exact


def test_int16_division():
    torch.manual_seed(21)
    fn = lambda a, b: (a / b, a / 3.0)  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(4, 9) * 2, divisor(9)), target=INT16, max_lsb=1)
    assert run.result.report["partitions"][0]["tosa_ops"].count("INTDIV") == 1


@pytest.mark.parametrize("a_shape, b_shape", TWO_TENSOR_SHAPES.values(), ids=TWO_TENSOR_SHAPES)
def test_int8_rounding_divisions_are_exact(a_shape, b_shape):
    fns = (
        lambda a, b: torch.div(a, b, rounding_mode="floor"),
        lambda a, b: torch.div(a, b, rounding_mode="trunc"),
        lambda a, b: a // 1.5,  # floor_divide by a number the quantizer makes a constant tensor
    )
    run = assert_quantized_close(
        Fn(lambda a, b: tuple(f(a, b) for f in fns)), two_tensor_operands(a_shape, b_shape), max_lsb=0
    )
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("GATHER") == 2, ops  # a // 1.5 folds its one-value constant into a TABLE


@pytest.mark.parametrize("scale, divisor_scale", [(100.0, 1.0), (1000.0, 10.0), (1e4, 1.0)])
def test_int8_floor_divide_rank4_large_values(scale, divisor_scale):
    """Large dividends by small divisors: quotients far beyond int8, clamped like the quantized model."""
    torch.manual_seed(int(scale))
    a, b = torch.randn(1, 2, 3, 4) * scale, torch.randn(1, 2, 3, 4) * divisor_scale
    assert_quantized_close(Fn(torch.floor_divide), (a, b), max_lsb=0)


# --- Ethos-U55/U65: no INTDIV, so x / y is x * reciprocal(y) (passes/divisions_as_reciprocal_products.py) ---

U55 = "ethos-u55-128"


def u55_quantizer():
    return EthosUQuantizer(U55).set_global(get_symmetric_quantization_config())


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2, 3, 5), (3, 1)), ((7,), ()), ((1, 2, 1, 3, 2), (2, 1, 4, 1, 1)), ((4, 6), (4, 6))],
    ids=["rank3_by_rank2", "rank1_by_scalar", "rank5_broadcast", "same_shape"],
)
def test_int8_division_by_reciprocal_on_u55(a_shape, b_shape):
    """The reciprocal is an int8 TABLE with parameters of its own, the product a MUL: the TOSA
    program equals the quantized model, lies within 3 output steps of torch's float quotient (the
    roundings of both operands, the reciprocal and the output),
    and on ethos-u55-128 runs all on the NPU."""
    torch.manual_seed(len(a_shape) * 10 + len(b_shape))
    a, b = torch.randn(a_shape) * 3, divisor(*b_shape)
    run = assert_quantized_close(Fn(torch.div), (a, b), quantizer=u55_quantizer(), max_lsb=0)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert "INTDIV" not in ops and ops.count("TABLE") == 1 and ops.count("MUL") == 1, ops
    assert (run.dequantized[0] - a / b).abs().max() <= 3 * float(run.output_qparams[0].scale)
    assert_all_on_npu(Fn(torch.div), (a, b), U55)


def test_int8_division_by_zero_on_u55_saturates():
    """A zero divisor looks up 1 / 0 = +inf, which the reciprocal's table saturates to the
    largest reciprocal calibrated: x / 0 is x times it, clamped to the output's range, so it
    saturates at the end of that range on the side of x's sign (torch: +-inf), and 0 / 0 is 0
    (torch: NaN). Calibrating on 0 / 0 itself fails, as for any model computing NaN."""
    calibration = [(torch.tensor([[2.0, -1.5, 1.0, 1.0, 3.0, 0.5]]), torch.tensor([[0.0, 0.0, 0.25, 0.5, -2.0, 1.0]]))]
    a = torch.tensor([[2.0, -1.5, 0.0, 1.0, 3.0, 0.5]])
    b = torch.tensor([[0.0, 0.0, 0.0, 0.5, -2.0, 1.0]])
    run = assert_quantized_close(
        Fn(torch.div), (a, b), quantizer=u55_quantizer(), max_lsb=0, calibration_data=calibration
    )
    got, out = run.dequantized[0][0], run.output_qparams[0]
    ends = out.dequantize(torch.tensor([out.qmin, out.qmax], dtype=torch.int8))
    assert got[0] == ends[1] and got[1] == ends[0] and got[2] == 0, (got, ends)
    assert torch.allclose(got[3:], (a / b)[0, 3:], atol=2 * float(out.scale))
    assert_all_on_npu(Fn(torch.div), calibration[0], U55)


def test_int16_division_stays_on_cpu_on_u55():
    """An int16 reciprocal would need an exact 65536-entry look-up: the division stays whole, on the CPU."""
    quantizer = EthosUQuantizer(U55).set_global(get_symmetric_a16w8_quantization_config())
    result = compile_model(Fn(torch.div), (torch.randn(2, 8), divisor(2, 8)), U55, quantize=True, quantizer=quantizer)
    reasons = [entry["reason"] for entry in result.report["cpu_ops"] if entry["op"] == "aten.div.Tensor"]
    assert any("needs TOSA INTDIV, which Ethos-U55/U65 do not run" in r for r in reasons), reasons
