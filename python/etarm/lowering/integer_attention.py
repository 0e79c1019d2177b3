"""scaled_dot_product_attention on integers (TOSA INT), lowered whole.

Design: one quantized op (q, k, v and a float mask quantized, the output quantized)
rather than matmul -> softmax -> matmul each rounding to 8/16 bits: the scores stay
int32 (MATMUL accumulators), masks act on them exactly (a masked score gets -2**30,
so its exp is exactly 0; a float mask is added on the same grid) and the softmax is
the int32 one of integer_softmax.py. The probabilities go into the second MATMUL in
pieces (three bytes of a Q23 value for int8, two 15-bit halves of a Q29 value for
int16), so they carry 23 (29) bits instead of the 8 (16) a quantized softmax output
would keep: the result is within 1 LSB of quantize(sdpa(dequantize(q, k, v))). On
DeiT-tiny's shapes 0.1% (peaked rows) to 1% (near-uniform rows, an output step 1/16 of
v's) of the values are one step off: the int8 tables' exps (2**-12.5 relative) remain.

Where the lowering may compute on int16 inside (``TosaGraph.int16_internals``: the int16
extension, not Ethos-U55/U65), int8 attention takes its exps from one int16 TABLE when
the error bound allows (integer_softmax.table_exponentials) and its Q15 weights meet
``v - zero point`` in ONE int16 MATMUL: transformer block on ethos-u85-256, 27565 ->
17906 cycles, with none of its 256 outputs off the quantized model's. Heads whose int32
scores together pass 64 KiB then run one after another, so that one head's int32 tensors
stay in the NPU's SRAM (conformer block, 4 x 128 x 128 scores: 1.94M -> 1.69M cycles on
ethos-u85-256, SRAM 374 -> 290 KiB).

The row maximum is a tree of SLICE + MAXIMUM on int32 (Vela takes no int32
REDUCE_MAX on Ethos-U55). int8 attention runs on Ethos-U55/U85; int16 MATMUL (int48
accumulators) only on U85; a runtime bool mask needs a CAST from bool, which Vela
does not take (constant masks, causal ones included, fold into constants).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import fixed_point as fx
from etarm.lowering import tensor_math as tm
from etarm.lowering.integer_softmax import (
    TABLE_MAX_ROW,
    Exponentials,
    exponentials,
    probabilities,
    table_exponentials,
)
from etarm.lowering.matmul import batched_matmul
from etarm.lowering.quantized import input_qparams, output_qparams, rescale
from etarm.lowering.reduction import reduce
from etarm.lowering.shapes import concat, slice_tensor
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import QuantParams, is_dequantize, qdq_dtype

MASK_INDEX, CAUSAL_INDEX = 3, 5
_PENALTY = 1 << 30  # added (negated) to masked scores, which stay within +-2**28 (+-2**29 with a float mask)
_SCORE_LIMIT = 1 << 28


def _spread(qparams: QuantParams) -> int:
    zero_point = int(qparams.zero_point)
    return max(qparams.qmax - zero_point, zero_point - qparams.qmin)


def quantized_attention_reason(node: torch.fx.Node) -> str | None:
    """INT-only limits: one integer type for q, k and v; a float mask passed positionally."""
    dtypes = {qdq_dtype(arg) for arg in node.args[:3] if is_dequantize(arg)}
    if len(dtypes) > 1:
        return "query, key and value are quantized to different integer types"
    mask = tm.argument(node, MASK_INDEX, "attn_mask")
    if isinstance(mask, torch.fx.Node) and mask.meta["val"].dtype.is_floating_point and len(node.args) <= MASK_INDEX:
        return "a float attn_mask passed by keyword (the quantized lowering reads it positionally)"
    q, k = (node.args[i].meta["val"] for i in (0, 1))
    if node.kwargs.get("enable_gqa", False) and q.shape[:-2] != k.shape[:-2]:
        return "enable_gqa with fewer key/value heads is not lowered for the INT profile"
    return None


def _row_maximum(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """Maximum along the last axis by halving: MAXIMUM of two overlapping SLICEs per step."""
    lead = tensor.shape[:-1]
    length = tensor.shape[-1]
    while length > 1:
        half = (length + 1) // 2
        first = slice_tensor(graph, tensor, (0,) * tensor.rank, lead + (half,))
        second = slice_tensor(graph, tensor, (0,) * (tensor.rank - 1) + (length - half,), lead + (half,))
        tensor = fx.maximum(graph, first, second)
        length = half
    return tensor


def _as_scores_shape(graph: TosaGraph, tensor: TosaTensor, batch: tuple[int, ...]) -> TosaTensor:
    """A mask operand [..., L or 1, S or 1] as rank 3, broadcastable against [count, L, S]."""
    tensor = graph.to_rank(tensor, len(batch) + 2)
    mask_batch = tensor.shape[:-2]
    if any(d != 1 for d in mask_batch) and mask_batch != batch:
        tensor = tm.tile(graph, tensor, batch + tensor.shape[-2:])
        mask_batch = batch
    return graph.reshape(tensor, (math.prod(mask_batch),) + tensor.shape[-2:])


def _zero_point(graph: TosaGraph, value: int, dtype) -> TosaTensor:
    return graph.const([value], dtype, shape=(1,), stem="zp")


def lower_quantized_attention(graph: TosaGraph, node: torch.fx.Node) -> TosaTensor:
    q, k, v = (graph.value(arg) for arg in node.args[:3])
    out = graph.out(node)
    if not _splits_heads(graph, node, q, k, v):
        return _lower_attention(graph, node, q, k, v, tuple(node.meta["val"].shape[:-2]), out)
    count = math.prod(out.shape[:-2])
    flat = [graph.reshape(t, (count,) + t.shape[-2:]) for t in (q, k, v)]
    heads = []
    for head in range(count):
        q_head, k_head, v_head = (slice_tensor(graph, t, (head, 0, 0), (1,) + t.shape[1:]) for t in flat)
        result = graph.temp((1,) + out.shape[-2:], out.dtype)
        heads.append(_lower_attention(graph, node, q_head, k_head, v_head, (1,), result))
    graph.reshape_into(concat(graph, heads, 0), out)
    return out


# Heads whose int32 scores together exceed this many bytes run one after another: on
# Ethos-U85 (384 KiB of SRAM) the conformer block's 4 x 128 x 128 scores (256 KiB) spilled
# to DRAM with everything computed from them, one head's (64 KiB) stay in SRAM.
_SPLIT_SCORES_BYTES = 1 << 16


def _splits_heads(graph: TosaGraph, node: torch.fx.Node, q, k, v) -> bool:
    """Whether unmasked int8 attention whose exps come from one int16 TABLE runs head by head."""
    batch = tuple(node.meta["val"].shape[:-2])
    count = math.prod(batch)
    if count == 1 or any(t.shape[:-2] != batch for t in (q, k, v)) or node.kwargs.get("enable_gqa", False):
        return False
    if tm.argument(node, MASK_INDEX, "attn_mask") is not None or tm.argument(node, CAUSAL_INDEX, "is_causal", False):
        return False
    if count * q.shape[-2] * k.shape[-2] * 4 <= _SPLIT_SCORES_BYTES:
        return False
    q_params, k_params, v_params = (input_qparams(node, i) for i in range(3))
    depth = q.shape[-1]
    logit = _score_unit(q_params, k_params, depth, _scale(node, depth))[1] * _scale(node, depth)
    return _takes_table(graph, k.shape[-2], logit, v_params)


def _scale(node: torch.fx.Node, depth: int) -> float:
    return node.kwargs.get("scale") or 1.0 / math.sqrt(depth)


def _score_unit(q_params: QuantParams, k_params: QuantParams, depth: int, scale: float) -> tuple[int, float]:
    """(j, unit): the scores are the MATMUL accumulator shifted right by j so that they stay
    within 2**28 and one step is >= 2**-22 of a logit (keeps masked exps exactly 0); one
    step is ``unit`` (before the softmax's scale)."""
    product_unit = float(q_params.scale) * float(k_params.scale)
    product_bound = depth * _spread(q_params) * _spread(k_params)
    shift = max(
        0, math.ceil(math.log2(product_bound / _SCORE_LIMIT)), math.ceil(math.log2(2.0**-22 / (scale * product_unit)))
    )
    return shift, product_unit * 2.0**shift


def _lower_attention(
    graph: TosaGraph, node: torch.fx.Node, q, k, v, batch: tuple[int, ...], out: TosaTensor
) -> TosaTensor:
    """Attention of ``q``, ``k``, ``v`` (``node``'s or one head of them) into ``out``."""
    q_params, k_params, v_params = (input_qparams(node, i) for i in range(3))
    target = output_qparams(node)
    depth, length, source_length = q.shape[-1], q.shape[-2], k.shape[-2]
    scale = _scale(node, depth)
    mask = tm.argument(node, MASK_INDEX, "attn_mask")
    is_causal = tm.argument(node, CAUSAL_INDEX, "is_causal", False)
    int16 = q_params.dtype == torch.int16

    accumulator = batched_matmul(
        graph,
        q,
        tm.swap_last_two(graph, k),
        (_zero_point(graph, int(q_params.zero_point), q.dtype), _zero_point(graph, int(k_params.zero_point), k.dtype)),
    )
    product_bound = depth * _spread(q_params) * _spread(k_params)
    shift, unit = _score_unit(q_params, k_params, depth, scale)
    scores = accumulator
    if int16 or shift:  # int48 accumulators take 16-bit multipliers; a power of two is exact
        scores = rescale(graph, accumulator, 2.0**-shift, fx.I32, scale32=not int16)
    product_unit = float(q_params.scale) * float(k_params.scale)

    gate = None
    if is_causal:
        allowed = np.tril(np.ones((length, source_length), dtype=bool))
        scores = fx.add(graph, scores, fx.const(graph, np.where(allowed, 0, -_PENALTY)[None], 3))
    elif mask is not None and mask.meta["val"].dtype == torch.bool:
        flags = graph.value(mask)
        known = graph.constant_data(flags)
        if known is not None:  # a constant mask folds: penalties are constants
            penalty = fx.const(graph, np.where(known, 0, -_PENALTY), flags.rank)
            scores = fx.add(graph, scores, _as_scores_shape(graph, penalty, batch))
            if not known.any(axis=-1).all():
                gate = _as_scores_shape(
                    graph, fx.const(graph, known.any(axis=-1, keepdims=True).astype(np.int64), flags.rank), batch
                )
        else:
            allowed = _as_scores_shape(graph, graph.emit(ts.Op.CAST, [flags], flags.shape, fx.I32), batch)
            scores = fx.add(graph, scores, fx.sub(graph, fx.shift_left(graph, allowed, 30), _PENALTY))
            # torch gives 0 for a query whose keys are all masked: zero its exps.
            gate = fx.minimum(graph, reduce(graph, ts.Op.REDUCE_SUM, allowed, [2]), 1)
    elif mask is not None:
        mask_params = input_qparams(node, MASK_INDEX)
        # Mask values past the largest score span (+64) act as +-inf; clip them so they fit.
        reach = product_bound * product_unit * scale + 64.0
        limit = math.ceil(reach / float(mask_params.scale))
        values = fx.widen(graph, graph.value(mask), int(mask_params.zero_point))
        values = fx.maximum(graph, fx.minimum(graph, values, limit), -limit)
        values = rescale(graph, values, float(mask_params.scale) / (scale * unit), fx.I32)
        scores = fx.add(graph, scores, _as_scores_shape(graph, values, batch))

    row_max = _row_maximum(graph, scores)
    if _takes_table(graph, source_length, unit * scale, v_params):
        exps = _table_exponentials(graph, scores, row_max, unit * scale, gate)
    else:
        exps = exponentials(graph, fx.sub(graph, row_max, scores), 2, unit * scale, 3 << 29, int16, gate)
    # Weights straight from the division's rounding shift: Q29 for int16, Q15 for int8 with
    # int16 internals (one int16 MATMUL), else Q23.
    fraction = 29 if int16 else 15 if graph.int16_internals else _INT8_FRACTION
    weights = probabilities(graph, exps, may_be_empty=gate is not None, fraction=fraction)  # [count, L, S]
    weights = graph.reshape(weights, batch + (length, source_length))
    return _weighted_values(graph, weights, v, v_params, target, int16, source_length, fraction, out)


# Logits per int16 TABLE position when exps come from one int16 TABLE: the full int16 range
# spans fx.EXP16_SPAN, so a masked score (far below it) saturates to an exp of exactly 0.
_TABLE_STEP = fx.EXP16_SPAN / 65535


def _takes_table(graph: TosaGraph, length: int, logit: float, v_params: QuantParams) -> bool:
    """Whether int8 attention takes its exps from one int16 TABLE (``_table_exponentials``):
    where the target looks up int16 values, rows are short enough for their int32 sums and
    the scores at least as fine as the table's positions.

    Their error is not bounded under half an output step in the worst case: each entry is
    rounded to 2**-15 of exp(0), and a row of N keys could add N such roundings of one sign
    (the conformer block's 128 keys, whose output step is 1/11 of v's: 11 steps). The
    roundings of different keys' exps are independent, though, and measured they move no
    more outputs than the int32 exps (1-LSB relative) do: conformer_block on ethos-u85-256,
    94 -> 96 of its 18432 outputs more than one step from the PT2E model, 1519 -> 1451 more
    than half a step, RMS error against the float model 0.02289 -> 0.02288, for 2.75M ->
    1.94M cycles."""
    return graph.int16_internals and v_params.dtype == torch.int8 and length <= TABLE_MAX_ROW and logit <= _TABLE_STEP


def _table_exponentials(graph, scores, row_max, logit: float, gate) -> Exponentials:
    """Exps of int8 attention from one int16 TABLE (integer_softmax.table_exponentials)."""
    # Position 32767 (nearly) for the row's maximum: score - (max - lift), then to int16.
    lift = math.floor(32767 * _TABLE_STEP / logit)
    position = rescale(graph, fx.sub(graph, scores, fx.sub(graph, row_max, lift)), logit / _TABLE_STEP, fx.I16)
    return table_exponentials(graph, position, 2, _TABLE_STEP, lift * logit / _TABLE_STEP, gate)


# int8 attention's weights in 8-bit pieces: Q23 (three MATMULs). With Q15 (two) each weight's
# rounding (2**-16) summed over a row of 197 keys flipped 3.9% of DeiT-tiny's attention outputs
# by one step against the PT2E model (1.0% with Q23), and RMS/layer norms of small rows
# amplify such flips several-fold (llama 15 -> 8 output steps).
_INT8_FRACTION = 23


def _weighted_values(
    graph, weights, v, v_params, target, int16: bool, source_length: int, fraction: int, out: TosaTensor
) -> TosaTensor:
    """``weights @ v`` from Q``fraction`` weights split into integer pieces (int16: two
    15-bit ones; int8: 8-bit ones), one MATMUL each, summed on an int32 grid."""
    if not int16 and graph.int16_internals:
        return _weighted_values_int16(graph, weights, v, v_params, target, out)
    piece_bits = 15 if int16 else 8
    count = -(-(fraction + 1) // piece_bits)
    zero_v = _zero_point(graph, int(v_params.zero_point), v.dtype)
    pieces = []
    for index in range(count):
        piece = fx.shift_right(graph, weights, piece_bits * index, rounding=False) if index else weights
        if index < count - 1:
            above = fx.shift_right(graph, weights, piece_bits * (index + 1), rounding=False)
            piece = fx.sub(graph, piece, fx.shift_left(graph, above, piece_bits))
        pieces.append(piece)
    if int16:
        pieces = [graph.emit(ts.Op.CAST, [p], p.shape, fx.I16) for p in pieces]
        zero_w = _zero_point(graph, 0, fx.I16)
    else:
        pieces = [rescale(graph, p, 1.0, fx.I8, output_zp=-128) for p in pieces]
        zero_w = _zero_point(graph, -128, fx.I8)
    sums = [batched_matmul(graph, p, v, (zero_w, zero_v)) for p in pieces]
    # sum = sum_i sums[i] * 2**(piece_bits * i), brought to a grid 2**step where it fits int32.
    bound = source_length * 2.0**fraction * _spread(v_params)
    step = max(0, math.ceil(math.log2(bound / 2**30)))
    combined = None
    for index, part in enumerate(sums):
        weight = piece_bits * index - step
        if int16:  # int48 sums: RESCALE with 16-bit multipliers (exact for powers of two)
            part = rescale(graph, part, 2.0**weight, fx.I32, scale32=False)
        elif weight > 0:  # int32 sums: shifts (a RESCALE by 2**8 would limit its input to 2**21)
            part = fx.shift_left(graph, part, weight)
        elif weight < 0:
            part = fx.shift_right(graph, part, -weight)
        combined = part if combined is None else fx.add(graph, combined, part)
    combined = graph.reshape(combined, out.shape)
    unit = float(v_params.scale) * 2.0 ** (step - fraction)
    return rescale(
        graph, combined, unit / float(target.scale), tosa_dtype(target.dtype), output_zp=int(target.zero_point), out=out
    )


def _weighted_values_int16(graph, weights, v, v_params, target, out) -> TosaTensor:
    """``weights @ v`` for int8 v as ONE int16 MATMUL (int48 sums): the Q15 weights
    saturated to int16 (a weight of 1 loses 2**-15) against ``v - zero point`` as int16."""
    weights16 = rescale(graph, weights, 1.0, fx.I16)
    v16 = rescale(graph, v, 1.0, fx.I16, input_zp=int(v_params.zero_point))
    zero = _zero_point(graph, 0, fx.I16)
    sums = batched_matmul(graph, weights16, v16, (zero, zero))
    scale = float(v_params.scale) * 2.0**-15 / float(target.scale)
    result = rescale(graph, sums, scale, tosa_dtype(target.dtype), output_zp=int(target.zero_point), scale32=False)
    graph.reshape_into(result, out)
    return out
