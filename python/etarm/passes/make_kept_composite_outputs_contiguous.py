"""MakeKeptCompositeOutputsContiguous: makes the outputs of composite ops kept whole contiguous before edge lowering.

When a visitor keeps a composite op whole (``preserved_ops``, e.g.
scaled_dot_product_attention), ExecuTorch decomposes the program twice: once fully, to
find the ops, and once keeping that op. Its whole form can return other strides than
its decomposition did, so a ``reshape`` already turned into a ``view`` in the first round
(``attn.transpose(1, 2).reshape(...)``, the usual way back from attention heads) no
longer applies in the second and export fails. Where export recorded a non-contiguous
result, a contiguous clone after the op gives both rounds the same strides; it lowers
to nothing.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

import etarm.operators  # noqa: F401  (registers every visitor: preserved_ops asks them)
from etarm.lowering.registry import preserved_ops
from etarm.passes.base import ProgramPass, Stage


class MakeKeptCompositeOutputsContiguous(ProgramPass):
    """Clones non-contiguous results of composite ops kept whole, so both decompositions agree."""

    stage = Stage.EXPORTED

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        return _make_contiguous(graph_module.graph)


def _make_contiguous(graph: torch.fx.Graph) -> bool:
    kept = set(preserved_ops())
    changed = False
    for node in list(graph.nodes):
        value = node.meta.get("val")
        if node.op != "call_function" or node.target not in kept or not isinstance(value, torch.Tensor):
            continue
        if value.is_contiguous() or _already_made_contiguous(node):
            continue
        with graph.inserting_after(node):
            contiguous = graph.call_function(
                torch.ops.aten.clone.default, (node,), {"memory_format": torch.contiguous_format}
            )
        node.replace_all_uses_with(contiguous, delete_user_cb=lambda user: user is not contiguous)
        contiguous.meta = {**node.meta, "val": value.contiguous()}
        changed = True
    return changed


def _already_made_contiguous(node: torch.fx.Node) -> bool:
    """A second run finds the clone the first one added as the node's only reader."""
    (user, *others) = list(node.users) or [None]
    return (
        not others
        and user is not None
        and user.target == torch.ops.aten.clone.default
        and user.kwargs.get("memory_format") == torch.contiguous_format
    )
