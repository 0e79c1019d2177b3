"""DuplicateSharedDequantizersPass: one dequantize node per consumer.

convert_pt2e gives every consumer its own dequantize (DQ) node, but edge decompositions
undo that: silu(DQ(x)) becomes sigmoid(DQ(x)) * DQ(x), one DQ read by two ops. An INT
partition takes a DQ only together with the op it feeds (the DQ folds into that op's
integer input, see tosa/quantized_support.py), so a shared DQ would tie the fate of all
its consumers together. Copying it per consumer lets each consumer be placed on its
own. Runs as an edge transform pass, before partitioning: partitioners must not change
the graph.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize


class DuplicateSharedDequantizersPass(ProgramPass):
    """Gives every consumer of a shared dequantize node its own copy, so each can be partitioned alone."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        changed = False
        for dq in [n for n in graph.nodes if is_dequantize(n) and len(n.users) > 1]:
            for user in list(dq.users)[1:]:
                with graph.inserting_after(dq):
                    copy = graph.node_copy(dq)
                user.replace_input_with(dq, copy)
                changed = True
        return changed
