"""maximum / minimum of two quantized tensors (TOSA INT profile).

TOSA 1.0 has MAXIMUM/MINIMUM for int32 only. When both operands and the result share
their parameters (the quantizer's default for these ops) the integers compare like the
real values, so the widened integers are compared and narrowed back (exact). Otherwise
each operand is rescaled to the output's scale in int32 first: rounding is monotonic,
so the extremum of the rounded values is the rounded extremum (<= 1 LSB).
"""

from __future__ import annotations

import torch
import tosa_serializer as ts

from etarm.lowering.elementwise import output_rank
from etarm.lowering.quantized import input_qparams, output_qparams, rescale
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype


def quantized_extremum(graph: TosaGraph, node: torch.fx.Node, op) -> TosaTensor:
    """``node``'s output = ``op`` (ts.Op.MAXIMUM or MINIMUM) of its two quantized operands."""
    sources = [input_qparams(node, 0), input_qparams(node, 1)]
    target = output_qparams(node)
    rank = output_rank(node)
    operands = [graph.to_rank(graph.value(arg), rank) for arg in node.args[:2]]
    shape = tuple(max(a, b) for a, b in zip(*(t.shape for t in operands)))
    shared = all(source.same_values(target) for source in sources)
    if shared:
        wide = [graph.emit(ts.Op.CAST, [t], t.shape, ts.DType.INT32) for t in operands]
    else:
        wide = [
            rescale(graph, t, float(q.scale) / float(target.scale), ts.DType.INT32, input_zp=int(q.zero_point))
            for t, q in zip(operands, sources)
        ]
    result = graph.emit(op, wide, shape, ts.DType.INT32, ts.NanPropagationMode.PROPAGATE)
    result = graph.reshape(result, tuple(node.meta["val"].shape))
    out = graph.out(node)
    if shared:
        graph.op(ts.Op.CAST, [result], [out])
        return out
    return rescale(graph, result, 1.0, tosa_dtype(target.dtype), output_zp=int(target.zero_point), out=out)
