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
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.operators.elementwise import output_rank
from etarm.operators.quantized import ADDITIVE_LEFT_SHIFT, input_qparams, int32_operand
from etarm.tosa.graph import TosaGraph, TosaTensor
from etarm.tosa.mapping import tosa_dtype
from etarm.tosa.quant_params import QuantParams

Comparison = Callable[[torch.Tensor, object], torch.Tensor]
Predicate = Callable[[torch.Tensor], torch.Tensor]


def quantized_comparison(graph: TosaGraph, node: torch.fx.Node, compare: Comparison) -> TosaTensor:
    """``node``'s bool output: ``compare`` (torch.gt, torch.eq, ...) of its quantized operands."""
    a, b = node.args[:2]
    if isinstance(b, numbers.Number):
        return quantized_predicate(graph, node, lambda real: compare(real, b))
    qa, qb = input_qparams(node, 0), input_qparams(node, 1)
    if qa.same_values(qb):
        operands = [_widened(graph, node, arg) for arg in (a, b)]
    else:
        left_shift = ADDITIVE_LEFT_SHIFT.get(tosa_dtype(qa.dtype))
        if left_shift is None or tosa_dtype(qb.dtype) != tosa_dtype(qa.dtype):
            raise EtarmError(f"{node.name}: comparing {qa.dtype} and {qb.dtype} tensors is not supported")
        unit = 2 * max(float(qa.scale), float(qb.scale)) / (1 << left_shift)
        operands = [
            int32_operand(graph, node, index, float(q.scale) / unit) for index, q in enumerate((qa, qb))
        ]
    tosa_op, swap, negate = _TOSA_COMPARISONS[compare]
    lhs, rhs = operands[::-1] if swap else operands
    result = _emit_bool(graph, tosa_op, lhs, rhs)
    return _bind(graph, node, _not(graph, result) if negate else result)


# torch comparison -> (TOSA op, swap operands, negate the result)
_TOSA_COMPARISONS = {
    torch.gt: (ts.Op.GREATER, False, False),
    torch.ge: (ts.Op.GREATER_EQUAL, False, False),
    torch.lt: (ts.Op.GREATER, True, False),
    torch.le: (ts.Op.GREATER_EQUAL, True, False),
    torch.eq: (ts.Op.EQUAL, False, False),
    torch.ne: (ts.Op.EQUAL, False, True),
}


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
    qparams = input_qparams(node, 0)
    holding = holding_values(qparams, predicate)
    x = _widened(graph, node, node.args[0])
    everything = np.arange(qparams.qmin, qparams.qmax + 1)
    interval = _as_interval(holding, qparams)
    if interval is not None:
        return _bind(graph, node, _in_interval(graph, x, *interval, qparams))
    interval = _as_interval(np.setdiff1d(everything, holding), qparams)
    if interval is None:  # torch's comparisons and tests hold on an interval or its complement
        raise EtarmError(f"{node.name}: the test holds on no interval of integers")
    return _bind(graph, node, _not(graph, _in_interval(graph, x, *interval, qparams)))


def _as_interval(values: np.ndarray, qparams: QuantParams) -> tuple[int, int] | None:
    """(low, high) when ``values`` are exactly the integers low..high (low > high: none)."""
    if values.size == 0:
        return qparams.qmax + 1, qparams.qmax
    low, high = int(values.min()), int(values.max())
    return (low, high) if values.size == high - low + 1 else None


def _in_interval(graph: TosaGraph, x: TosaTensor, low: int, high: int, qparams: QuantParams) -> TosaTensor:
    """``low <= x <= high`` for int32 ``x`` holding values of ``qparams``' range."""
    if low > high:  # nothing: x > qmax never holds
        return _emit_bool(graph, ts.Op.GREATER, x, _scalar(graph, x, qparams.qmax))
    checks = []
    if low > qparams.qmin:
        checks.append(_emit_bool(graph, ts.Op.GREATER_EQUAL, x, _scalar(graph, x, low)))
    if high < qparams.qmax:
        checks.append(_emit_bool(graph, ts.Op.GREATER_EQUAL, _scalar(graph, x, high), x))
    if not checks:  # everything: x >= qmin always holds
        return _emit_bool(graph, ts.Op.GREATER_EQUAL, x, _scalar(graph, x, qparams.qmin))
    if len(checks) == 1:
        return checks[0]
    return graph.emit(ts.Op.LOGICAL_AND, checks, checks[0].shape, ts.DType.BOOL)


def _widened(graph: TosaGraph, node: torch.fx.Node, arg: torch.fx.Node) -> TosaTensor:
    """The operand's integers as int32 (TOSA 1.0 compares int32), at the output's rank."""
    tensor = graph.to_rank(graph.value(arg), output_rank(node))
    return graph.emit(ts.Op.CAST, [tensor], tensor.shape, ts.DType.INT32)


def _scalar(graph: TosaGraph, like: TosaTensor, value: int) -> TosaTensor:
    return graph.const([value], ts.DType.INT32, shape=(1,) * like.rank, stem="bound")


def _emit_bool(graph: TosaGraph, op, lhs: TosaTensor, rhs: TosaTensor) -> TosaTensor:
    shape = tuple(max(x, y) for x, y in zip(lhs.shape, rhs.shape))
    return graph.emit(op, [lhs, rhs], shape, ts.DType.BOOL)


def _not(graph: TosaGraph, value: TosaTensor) -> TosaTensor:
    return graph.emit(ts.Op.LOGICAL_NOT, [value], value.shape, ts.DType.BOOL)


def _bind(graph: TosaGraph, node: torch.fx.Node, result: TosaTensor) -> TosaTensor:
    shape = tuple(int(d) for d in node.meta["val"].shape)
    if result.shape != shape:
        result = graph.reshape(result, shape)
    graph.bind(node, result)
    return result
