"""RecordCpuVariant: puts cortex_m::cpu_variant(target, code path) on the program's first input.

What differs between CMSIS-NN builds is the code path (MVE for Helium cores, DSP for cores with
the SIMD32 extension, plain C for the rest): scratch buffer sizes and the fully-connected kernel's
buffer follow it, the arithmetic does not. The op runs before every other node, so an image built
for another path stops at it with an Error naming the program's CPU and the image's path.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.library import NAMESPACE
from etarm.passes.base import ProgramPass

# -t name -> the CMSIS-NN path its -mcpu selects, spelt as etarm_cmsis_nn_code_path() returns it.
CODE_PATH = {
    "cortex-m0": "SCALAR",
    "cortex-m0plus": "SCALAR",
    "cortex-m3": "SCALAR",
    "cortex-m23": "SCALAR",
    "cortex-m4": "DSP",
    "cortex-m7": "DSP",
    "cortex-m33": "DSP",
    "cortex-m35p": "DSP",
    "cortex-m55": "MVE",
    "cortex-m85": "MVE",
}
CPU_VARIANT = exir_ops.edge.cortex_m.cpu_variant.default


def _runs_cortex_m_kernels(graph: torch.fx.Graph) -> bool:
    return any(
        node.op == "call_function" and getattr(node.target, "namespace", None) == NAMESPACE for node in graph.nodes
    )


class RecordCpuVariant(ProgramPass):
    """Records the target CPU and its CMSIS-NN code path in a cortex_m::cpu_variant on the first input."""

    def __init__(self, target: str):
        super().__init__()
        if target not in CODE_PATH:
            raise ValueError(f"RecordCpuVariant: unknown Cortex-M target {target!r}; known: {', '.join(CODE_PATH)}")
        self.target = target

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        if program is None or not _runs_cortex_m_kernels(graph):
            return False
        user_inputs = set(program.graph_signature.user_inputs)
        placeholders = [node for node in graph.nodes if node.op == "placeholder"]
        first = next((node for node in placeholders if node.name in user_inputs), None)
        if first is None or not isinstance(first.meta.get("val"), torch.Tensor):
            return False
        with graph.inserting_after(placeholders[-1]):
            record = graph.call_function(CPU_VARIANT, (first, self.target, CODE_PATH[self.target]))
        record.meta["val"] = first.meta["val"]
        first.replace_all_uses_with(record, delete_user_cb=lambda user: user is not record)
        return True
