"""Comparisons and other tests of quantized tensors (TOSA INT profile): bool results
computed on integers.

Dequantizing, ``(q - zero_point) * scale`` in float32 as the quantized model does it,
orders the values of one tensor as their integers. So:

- two tensors with the same parameters (the quantizer shares them between the operands)
  compare as integers, exactly;
- two tensors with different parameters are rescaled to int32 on a common step of
  ``2 * max(scale) / 2**L`` (L = 20 for int8, 15 for int16) and compared: exact unless two
  real values lie closer than that step;
- a test of one tensor (against a number, isnan, isinf): every q of the input's type is
  dequantized and tested as torch does, and the integers for which the test holds (an
  interval, or the complement of one, e.g. for ``ne``; none for isnan) become one or two
  integer comparisons. Exact.
"""

from __future__ import annotations

import numbers
from typing import Callable

import numpy as np
import torch

from etarm.errors import EtarmError
from etarm.lowering.compose import Composer
from etarm.lowering.fixed_point import widened
from etarm.lowering.quantized import ADDITIVE_LEFT_SHIFT, input_qparams, int32_operand
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import QuantParams

Comparison = Callable[[torch.Tensor, object], torch.Tensor]
Predicate = Callable[[torch.Tensor], torch.Tensor]
# The integer comparison, as a comparison visitor's ``compute(c, a, b)``.
IntegerComparison = Callable[[Composer, TosaTensor, TosaTensor], TosaTensor]


def quantized_comparison(
    graph: TosaGraph, node: torch.fx.Node, compare_integers: IntegerComparison, compare: Comparison
) -> TosaTensor:
    """``node``'s bool output: ``compare`` (torch.gt, torch.eq, ...) of its quantized operands,
    computed by ``compare_integers`` on int32 operands."""
    a, b = node.args[:2]
    if isinstance(b, numbers.Number):
        return quantized_predicate(graph, node, lambda real: compare(real, b))
    c = Composer(graph, node)
    qa, qb = input_qparams(node, 0), input_qparams(node, 1)
    if qa.same_values(qb):
        operands = [widened(graph, c.tensor(arg)) for arg in (a, b)]
    else:
        left_shift = ADDITIVE_LEFT_SHIFT.get(tosa_dtype(qa.dtype))
        if left_shift is None or tosa_dtype(qb.dtype) != tosa_dtype(qa.dtype):
            raise EtarmError(f"{node.name}: comparing {qa.dtype} and {qb.dtype} tensors is not supported")
        unit = 2 * max(float(qa.scale), float(qb.scale)) / (1 << left_shift)
        operands = [int32_operand(graph, node, index, float(q.scale) / unit) for index, q in enumerate((qa, qb))]
    return c.finish(compare_integers(c, *operands))


def holding_values(qparams: QuantParams, predicate: Predicate) -> np.ndarray:
    """The q values of ``qparams``' range for which ``predicate(dequantize(q))`` holds,
    computed with torch's own dequantize (float32, as the quantized model)."""
    q = torch.arange(qparams.qmin, qparams.qmax + 1, dtype=torch.int32).to(qparams.dtype)
    real = torch.ops.quantized_decomposed.dequantize_per_tensor(
        q, float(qparams.scale), int(qparams.zero_point), qparams.qmin, qparams.qmax, qparams.dtype
    )
    return q[predicate(real)].to(torch.int32).numpy()


def quantized_predicate(graph: TosaGraph, node: torch.fx.Node, predicate: Predicate) -> TosaTensor:
    """``node``'s bool output: ``predicate`` of the real values of its quantized argument 0."""
    c = Composer(graph, node)
    qparams = input_qparams(node, 0)
    holding = holding_values(qparams, predicate)
    x = widened(graph, c.tensor(node.args[0]))
    interval = _as_interval(holding, qparams)
    if interval is not None:
        return c.finish(_in_interval(c, x, *interval, qparams))
    everything = np.arange(qparams.qmin, qparams.qmax + 1)
    interval = _as_interval(np.setdiff1d(everything, holding), qparams)
    if interval is None:  # torch's comparisons and tests hold on an interval or its complement
        raise EtarmError(f"{node.name}: the test holds on no interval of integers")
    return c.finish(c.logical_not(_in_interval(c, x, *interval, qparams)))


def _as_interval(values: np.ndarray, qparams: QuantParams) -> tuple[int, int] | None:
    """(low, high) when ``values`` are exactly the integers low..high (low > high: none)."""
    if values.size == 0:
        return qparams.qmax + 1, qparams.qmax
    low, high = int(values.min()), int(values.max())
    return (low, high) if values.size == high - low + 1 else None


def _in_interval(c: Composer, x: TosaTensor, low: int, high: int, qparams: QuantParams) -> TosaTensor:
    """``low <= x <= high`` for int32 ``x`` holding values of ``qparams``' range."""
    if low > high:  # nothing: x > qmax never holds
        return c.gt(x, qparams.qmax)
    checks = []
    if low > qparams.qmin:
        checks.append(c.ge(x, low))
    if high < qparams.qmax:
        checks.append(c.ge(high, x))
    if not checks:  # everything: x >= qmin always holds
        return c.ge(x, qparams.qmin)
    return checks[0] if len(checks) == 1 else c.logical_and(*checks)
