"""QuantizePassThroughOutputs: a float program output that only moves dequantized values gets
their quantize/dequantize pair.

An INT partition writes integers, and the dequantize (DQ) of each of its outputs runs on CPU
(tosa/quantized_support.py). PT2E puts a quantize (Q) after every op it annotates; an op it
leaves alone that only moves values (squeeze_copy, or the clone an edge decomposition appends
after it) and whose result the program returns has none: its output is the float
``DQ(x)`` moved around. Such an op may still be delegated (its values have the DQ's
parameters), and without a Q/DQ pair the partition would write the integers where the
program expects the floats. This pass adds ``Q -> DQ`` with the DQ's parameters before the
output: exact, since ``Q(DQ(q)) == q`` for every integer ``q`` of the DQ's range. Runs as an
edge transform pass, before partitioning.
"""

from __future__ import annotations

import operator

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.dialects.edge._ops import EdgeOpOverload
from torch.export import ExportedProgram

from etarm.lowering.quantized_support import is_pass_through
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize

_PER_TENSOR_DQ = "quantized_decomposed.dequantize_per_tensor.default"


def _float_tensor(value) -> bool:
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point


def moved_dequantize(node) -> torch.fx.Node | None:
    """The per-tensor DQ whose values ``node`` holds after ops that only move them (None: none)."""
    seen = 0
    while isinstance(node, torch.fx.Node) and node.op == "call_function" and seen < 1000:
        seen += 1
        if is_dequantize(node):
            return node if op_name(node.target) == _PER_TENSOR_DQ else None
        op = node.args[0] if node.target is operator.getitem else node
        if not isinstance(op, torch.fx.Node) or not is_pass_through(op):
            return None
        sources = [a for a in op.args if isinstance(a, torch.fx.Node) and _float_tensor(a.meta.get("val"))]
        if len(sources) != 1:
            return None  # several float inputs (cat, where): their parameters may differ
        node = sources[0]
    return None


class QuantizePassThroughOutputs(ProgramPass):
    """Adds Q -> DQ before a float output that only moves dequantized values, so an INT partition can return it."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        output = graph.output_node()
        changed = False
        values = list(output.args[0]) if isinstance(output.args[0], (list, tuple)) else [output.args[0]]
        for index, value in enumerate(values):
            if not isinstance(value, torch.fx.Node) or is_dequantize(value) or not _float_tensor(value.meta.get("val")):
                continue
            dq = moved_dequantize(value)
            if dq is None:
                continue
            params = tuple(dq.args[1:])
            quantize = (
                exir_ops.edge.quantized_decomposed.quantize_per_tensor.default
                if isinstance(dq.target, EdgeOpOverload)
                else torch.ops.quantized_decomposed.quantize_per_tensor.default
            )
            with graph.inserting_before(output):
                q = graph.call_function(quantize, (value, *params))
                dequantized = graph.call_function(dq.target, (q, *params))
            fake = value.meta["val"]
            q.meta = {**{k: v for k, v in value.meta.items() if k != "val"}, "val": fake.to(params[-1])}
            dequantized.meta = {**{k: v for k, v in value.meta.items() if k != "val"}, "val": fake}
            values[index] = dequantized
            changed = True
        if changed:
            output.args = (type(output.args[0])(values) if isinstance(output.args[0], (list, tuple)) else values[0],)
        return changed
