"""PointwiseRowsAsBatch (Ethos-U55/U65 and U85): a linear's 1x1 CONV2D takes its rows as the batch."""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts

from etarm.tosa_ir import graph_edits
from etarm.passes.base import Stage, TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp


class PointwiseRowsAsBatch(TosaPass):
    """1x1 CONV2D over a column of rows ([1, R, 1, K]) -> the rows as its batch ([R, 1, 1, K]).

    The column of rows is the INT lowering's linear; its CONV2D takes the rows as the
    batch, unless its RESCALE feeds a TABLE. Both layouts hold the same bytes in the same
    order, so RESHAPEs in and out give the same result. Vela's U85 estimate is lower for
    the batch (mlp: 2047 -> 2039 cycles), but it fuses a following TABLE into the
    convolution only at batch 1 (the transformer block's GELU: +816 cycles; the conformer
    block's SiLU: +40k). On U55 Vela 5.2.0 computes a column of 128 rows at half the speed
    of the batch (the conformer block's linears, 168640 -> 86400 cycles each: 7.39M -> 7.13M
    for the block); the small models' linears cost the same either way.
    """

    stage = Stage.BACKEND

    def run(self, graph: TosaGraph) -> int:
        """Returns the number of convolutions rewritten."""
        consumers = graph_edits.consumers(graph)
        replacements: dict[int, list[TosaOp]] = {}
        for op in graph.ops:
            if op.op != ts.Op.CONV2D or graph_edits.kernel_hw(graph, op) != (1, 1):
                continue
            pad, stride, dilation = op.attr_args[:3]
            x, acc = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
            column = x.shape[0] == 1 and x.shape[2] == 1 and x.shape[1] > 1
            if any(pad) or list(stride) != [1, 1] or list(dilation) != [1, 1] or not column:
                continue
            rescale = graph_edits.single_consumer(consumers, graph, acc.name)
            if rescale is None or not graph_edits.shape_independent_rescale(graph, rescale):
                continue
            result = graph.tensors[rescale.outputs[0]]
            if any(user.op == ts.Op.TABLE for user in consumers.get(result.name, [])):
                continue
            rows = x.shape[1]

            def build(op=op, rescale=rescale, x=x, acc=acc, result=result, rows=rows) -> None:
                batch = graph.reshape(x, (rows, 1, 1, x.shape[3]))
                wide = graph.temp((rows, 1, 1, acc.shape[3]), acc.dtype, stem="rows")
                graph.ops.append(dataclasses.replace(op, inputs=[batch.name, *op.inputs[1:]], outputs=[wide.name]))
                scaled = graph.temp(wide.shape, result.dtype, stem="rows_scaled")
                graph.ops.append(dataclasses.replace(rescale, inputs=[wide.name, *rescale.inputs[1:]], outputs=[scaled.name]))
                graph.reshape_into(scaled, result)

            replacements[id(op)] = []
            replacements[id(rescale)] = graph_edits.emitted(graph, op.origin, build)
        graph_edits.replace(graph, replacements)
        return len(replacements) // 2
