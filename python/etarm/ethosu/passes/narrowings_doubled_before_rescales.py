"""NarrowingsDoubledBeforeRescales (Ethos-U85 only): an int48 convolution sum narrowed to int32
by 1 and then RESCALEd again is narrowed by 2 instead, and the next RESCALE shifts one bit more."""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir import graph_edits
from etarm.tosa_ir.graph import TosaGraph, TosaOp

_SCALE32, _ROUNDING = 0, 1  # RESCALE's attributes: scale32, rounding mode, per_channel, input/output unsigned
_SUMS = (ts.Op.CONV2D, ts.Op.DEPTHWISE_CONV2D)
# Doubled, the sums must still fit int32.
_SUM_LIMIT = 1 << 30


class NarrowingsDoubledBeforeRescales(TosaPass):
    """RESCALE int48 -> int32 by exactly 1 (the INT lowering's int32_accumulator) of a CONV2D or
    DEPTHWISE_CONV2D whose sums stay below 2**30, read only by a single-rounding RESCALE ->
    the first by 2 and the second with every shift + 1, which gives the same results:
    (2 a m + 2**s) >> (s + 1) = (a m + 2**(s - 1)) >> s.

    Vela 5.2.0 for U85 fuses both RESCALEs into the convolution's 48-bit scale records, which
    hold a 15-bit multiplier, and writes the low 15 bits of the second RESCALE's 32-bit one:
    int16 average pools came out near 0 on the NPU model (avg_pool1d's 1/3 as 0x5555 * 2**-32,
    ds_cnn's 1/125 as 0x4DD3 * 2**-35). With the factor 2 Vela fuses only the first RESCALE
    and runs the second on its own with its whole multiplier.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of RESCALE pairs rewritten."""
        readers, writers = graph_edits.consumers(graph), graph_edits.producers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        for narrowing in graph_edits.ops_of(graph, ts.Op.RESCALE):
            sums, narrowed = (graph.tensors[name] for name in (narrowing.inputs[0], narrowing.outputs[0]))
            if sums.dtype != ts.DType.INT48 or narrowed.dtype != ts.DType.INT32:
                continue
            shift = _unit_shift(graph, narrowing)
            rescale = graph_edits.single_consumer(readers, graph, narrowing.outputs[0])
            if shift is None or shift < 3 or rescale is None or rescale.op != ts.Op.RESCALE:
                continue
            shifts = graph.constant_data(graph.tensors[rescale.inputs[2]])
            if rescale.attr_args[_ROUNDING] != ts.RoundingMode.SINGLE_ROUND or shifts is None or shifts.max() > 61:
                continue
            if not _sums_below(graph, writers.get(narrowing.inputs[0]), _SUM_LIMIT):
                continue

            def build(narrowing=narrowing, rescale=rescale, shift=shift, shifts=shifts) -> None:
                operands = [graph.tensors[name] for name in narrowing.inputs]
                doubled = graph.temp(graph.tensors[narrowing.outputs[0]].shape, ts.DType.INT32, stem="doubled")
                operands[2] = graph.const([shift - 1], ts.DType.INT8, stem="shift")
                graph.op(ts.Op.RESCALE, operands, [doubled], *narrowing.attr_args)
                operands = [doubled, *(graph.tensors[name] for name in rescale.inputs[1:])]
                operands[2] = graph.const(np.asarray(shifts, dtype=np.int64) + 1, ts.DType.INT8, stem="shift")
                graph.op(ts.Op.RESCALE, operands, [graph.tensors[rescale.outputs[0]]], *rescale.attr_args)

            replacements[id(narrowing)] = []
            replacements[id(rescale)] = graph_edits.emitted(graph, rescale.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements) // 2


def _unit_shift(graph: TosaGraph, rescale: TosaOp) -> int | None:
    """The shift of a per-tensor RESCALE by exactly 1 (multiplier 2**shift), else None."""
    multiplier, shift = (graph.constant_data(graph.tensors[name]) for name in rescale.inputs[1:3])
    if multiplier is None or shift is None or multiplier.size != 1 or shift.size != 1:
        return None
    shift = int(shift.reshape(-1)[0])
    return shift if int(multiplier.reshape(-1)[0]) == 1 << shift else None


def _sums_below(graph: TosaGraph, convolution: TosaOp | None, limit: int) -> bool:
    """Whether every sum of a CONV2D / DEPTHWISE_CONV2D of an int16 input with constant weights
    and bias stays below ``limit`` in magnitude, whatever the input."""
    if convolution is None or convolution.op not in _SUMS:
        return False
    source = graph.tensors[convolution.inputs[0]]
    weights, bias, weight_zp = _constants(graph, convolution)
    if source.dtype != ts.DType.INT16 or weights is None or bias is None or weight_zp is None:
        return False
    centred = np.abs(weights.astype(np.int64) - int(weight_zp.reshape(-1)[0]))
    if convolution.op == ts.Op.DEPTHWISE_CONV2D:  # [KH, KW, C, M]: each output channel's taps
        per_channel = centred.sum(axis=(0, 1)).reshape(-1)
    else:  # [O, KH, KW, I]
        per_channel = centred.reshape(centred.shape[0], -1).sum(axis=1)
    # int16 inputs have zero point 0: |q| <= 2**15.
    return int(per_channel.max()) * (1 << 15) + int(np.abs(bias.astype(np.int64)).max()) < limit


def _constants(graph: TosaGraph, convolution: TosaOp):
    """(weights, bias, weight zero point) of a convolution, each None when not constant."""
    weights, bias, _input_zp, weight_zp = convolution.inputs[1:5]
    return tuple(graph.constant_data(graph.tensors[name]) for name in (weights, bias, weight_zp))
