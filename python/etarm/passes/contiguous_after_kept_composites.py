"""Makes the outputs of composite ops kept whole contiguous before edge lowering.

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

from etarm.operators.registry import preserved_ops


def make_kept_composite_outputs_contiguous(program: ExportedProgram) -> ExportedProgram:
    kept = set(preserved_ops())
    graph = program.graph_module.graph
    changed = False
    for node in list(graph.nodes):
        value = node.meta.get("val")
        if node.op != "call_function" or node.target not in kept or not isinstance(value, torch.Tensor):
            continue
        if value.is_contiguous():
            continue
        with graph.inserting_after(node):
            contiguous = graph.call_function(
                torch.ops.aten.clone.default, (node,), {"memory_format": torch.contiguous_format}
            )
        node.replace_all_uses_with(contiguous, delete_user_cb=lambda user: user is not contiguous)
        contiguous.meta = {**node.meta, "val": value.contiguous()}
        changed = True
    if changed:
        program.graph_module.recompile()
    return program
