"""CancelLayoutPermutes: drops a permute_copy whose input is a permute_copy it inverts.

Each NHWC cortex_m op sits between a permute to NHWC and one back to NCHW (nhwc.py); where two of them follow each
other the NCHW -> NHWC permute after the first undoes the NHWC -> NCHW one before it, so the second reads the
first's NHWC result directly. A chain of convolutions stays NHWC; only the model's boundaries (and float consumers
in NCHW) keep a permute, on the portable kernel.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from etarm.cortex_m.passes.nhwc import PERMUTE
from etarm.passes.base import ProgramPass


def _is_permute(node) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target == PERMUTE


class CancelLayoutPermutes(ProgramPass):
    """Replaces permute_copy(permute_copy(x, p), q), where q undoes p, by x."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        changed = False
        for node in list(graph.nodes):
            if not (_is_permute(node) and _is_permute(node.args[0])):
                continue
            first = node.args[0]
            p, q = list(first.args[1]), list(node.args[1])
            if [p[i] for i in q] != list(range(len(p))):
                continue
            node.replace_all_uses_with(first.args[0])
            graph.erase_node(node)
            if not first.users:
                graph.erase_node(first)
            changed = True
        return changed
