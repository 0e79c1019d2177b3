"""InsertInt32CastsAfterInt64PlaceholdersPass: int64 graph inputs are read through an int32 cast.

Each int64 user input (token ids feeding an embedding, say) gets a cast to int32 right
after the placeholders, and its users read the cast. A consumer that needs int64 (one_hot,
gather's index, anything left on CPU) gets a local cast back to int64 right before it
(see int64_narrowing). On a bare graph module, where user inputs cannot be told from
lifted constants, every int64 placeholder is treated as an input.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.passes.dtype_casts import only_read_through_casts, value_dtype
from etarm.passes.int64_narrowing import Int64Narrowing, Int64NarrowingPass


class InsertInt32CastsAfterInt64PlaceholdersPass(Int64NarrowingPass):
    """Casts int64 graph inputs to int32 right after they enter."""

    def narrow(
        self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None, narrowing: Int64Narrowing
    ) -> None:
        user_inputs = None
        if program is not None:
            user_inputs = {s.arg.name for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT}
        for node in list(graph_module.graph.nodes):
            if node.op != "placeholder" or value_dtype(node) != torch.int64 or only_read_through_casts(node):
                continue  # no users, or already read through casts (this pass ran before)
            if user_inputs is None or node.name in user_inputs:
                narrowing.narrow_after(node)
