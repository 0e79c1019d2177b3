"""div, maximum / minimum, pow, remainder and fmod on the TOSA INT profile: PT2E-quantized,
run on the TOSA reference model, compared with the convert_pt2e'd model in eager (in LSB).

Bounds:
- division by a tensor is INTDIV of the dividend shifted left (21 bits for int8, 15 for
  int16) by the divisor, then one RESCALE: the truncation costs under one output step
  when the output range covers |a| / |b|, so 1 LSB; by a positive constant it is one
  RESCALE (1 LSB), by a negative one a TABLE (0 LSB).
- maximum / minimum with shared parameters compare the integers: exact, 0 LSB; with
  different parameters each operand is rescaled to the output's first: 1 LSB.
- pow, remainder, fmod and rounding divisions of two int8 tensors index a table of every
  pair of values (exact, 0 LSB); with a number operand they are a TABLE (0 LSB).
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.operators.registry import op_name
from etarm.quantizer.annotate_elementwise import annotate_binary
from etarm.quantizer.quantization_config import get_symmetric_quantization_config
from etarm.quantizer.tosa_quantizer import TOSAQuantizer
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close

INT16 = "TOSA-1.0+INT+int16"


def _divisor(*shape):
    """Values of either sign, at least 0.4 away from zero."""
    magnitude = torch.rand(shape) * 1.6 + 0.4
    return torch.where(torch.rand(shape) < 0.5, -magnitude, magnitude)


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2, 3, 5), (3, 1)), ((7,), ()), ((1, 2, 1, 3, 2), (2, 1, 4, 1, 1))],
    ids=["rank3_by_rank2", "rank1_by_scalar", "rank5_broadcast"],
)
def test_int8_division(a_shape, b_shape):
    torch.manual_seed(len(a_shape) + len(b_shape))
    fn = lambda a, b: (a / b, a / 2.5, a / -0.75, torch.true_divide(a, b))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(a_shape) * 3, _divisor(*b_shape)), max_lsb=1)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("INTDIV") == 2 and ops.count("TABLE") == 1, ops  # / 2.5 is a RESCALE alone
    assert run.lsb_errors()[2] == 0  # the negative constant's TABLE is exact


def test_int16_division():
    torch.manual_seed(21)
    fn = lambda a, b: (a / b, a / 3.0)  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(4, 9) * 2, _divisor(9)), target=INT16, max_lsb=1)
    assert run.result.report["partitions"][0]["tosa_ops"].count("INTDIV") == 1


@pytest.mark.parametrize("target", ["TOSA-1.0+INT", INT16])
def test_extrema_with_shared_parameters_are_exact(target):
    torch.manual_seed(22)
    fn = lambda a, b: (torch.maximum(a, b), torch.minimum(a, b), torch.max(a, b * 2))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(2, 3, 4), torch.randn(3, 1)), target=target, max_lsb=0)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("MAXIMUM") == 2 and ops.count("MINIMUM") == 1, ops


class _IndependentExtrema(TOSAQuantizer):
    """Quantizes maximum's operands and result each on their own (the default shares them)."""

    def annotate(self, model):
        for node in model.graph.nodes:
            if node.op == "call_function" and op_name(node.target) in ("aten.maximum.default", "aten.minimum.default"):
                annotate_binary(node, self.global_config, self.config_for)
        return super().annotate(model)


def test_int8_extrema_with_different_parameters():
    torch.manual_seed(23)
    quantizer = _IndependentExtrema("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    fn = lambda a, b: (torch.maximum(a, b), torch.minimum(a, b))  # noqa: E731
    run = assert_quantized_close(Fn(fn), (torch.randn(5, 3) * 4, torch.randn(3) * 0.5), quantizer=quantizer)
    inputs = run.result.report["partitions"][0]["inputs"]
    assert inputs[0]["scale"] > 2 * inputs[1]["scale"]  # really different parameters


@pytest.mark.parametrize(
    "a_shape, b_shape", [((2, 3, 4), (4,)), ((5,), (5,))], ids=["rank3_broadcast", "rank1"]
)
def test_int8_functions_of_two_tensors_are_exact(a_shape, b_shape):
    torch.manual_seed(24)
    fns = (
        lambda a, b: torch.pow(a.abs() + 0.5, b),  # abs + 0.5 is quantized on its own: pow of two int8 tensors
        lambda a, b: torch.remainder(a, b),
        lambda a, b: torch.fmod(a, b),
        lambda a, b: torch.div(a, b, rounding_mode="floor"),
        lambda a, b: torch.div(a, b, rounding_mode="trunc"),
        lambda a, b: a // 1.5,  # floor_divide by a number the quantizer makes a constant tensor
    )
    run = assert_quantized_close(
        Fn(lambda a, b: tuple(f(a, b) for f in fns)), (torch.randn(a_shape) * 3, _divisor(*b_shape)), max_lsb=0
    )
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("GATHER") == 5, ops  # a // 1.5 folds its one-value constant into a TABLE


def test_int16_two_tensor_lookups_stay_on_cpu():
    """A table of every pair of int16 values would have 2**32 entries."""
    fn = Fn(lambda a, b: (torch.pow(a.abs() + 0.5, b), torch.remainder(a, b), a * b))
    result = compile_model(fn, (torch.randn(4) * 3, _divisor(4)), INT16, quantize=True)
    reasons = {e["op"]: e["reason"] for e in result.report["cpu_ops"] if e["op"].startswith(("aten.pow", "aten.rem"))}
    assert set(reasons) == {"aten.pow.Tensor_Tensor", "aten.remainder.Tensor"}, reasons
    for op, reason in reasons.items():
        assert reason.startswith(f"{op}: ") and "table of every pair of int8 values" in reason and "int16" in reason
    # The rest of the graph is still delegated.
    assert any("MUL" in p["tosa_ops"] for p in result.report["partitions"])
