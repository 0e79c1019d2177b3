"""CortexMPartitioner: delegates nothing; says, per op, which kernel will run it and why.

Cortex-M programs are operator libraries, not delegates: the pipeline's edge passes have
already turned what CMSIS-NN runs into ``cortex_m::`` ops. compile_model's report lists every
op of the program with the reason kept here.
"""

from __future__ import annotations

import torch
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from torch.export import ExportedProgram

from etarm.cortex_m.compile_spec import CortexMCompileSpec
from etarm.cortex_m.ops import NAMESPACE
from etarm.cortex_m.ops.library import WITHOUT_CMSIS_NN, WITHOUT_CMSIS_NN_INT16
from etarm.cortex_m.passes.matching import REASON
from etarm.cortex_m.passes.quantized_activations_as_tables import lowering_problem, ops_to_keep_whole
from etarm.op_names import op_name
from etarm.tosa_ir.quant_params import is_qdq


def _reason(node: torch.fx.Node) -> str:
    name = op_name(node.target)
    if name.startswith(f"{NAMESPACE}."):
        op = name.split(".")[1]
        value = node.meta.get("val")
        int16 = isinstance(value, torch.Tensor) and value.dtype == torch.int16
        if op in WITHOUT_CMSIS_NN or (int16 and op in WITHOUT_CMSIS_NN_INT16):
            return "cortex_m kernel (the project's: CMSIS-NN has none)"
        return "cortex_m kernel (CMSIS-NN)"
    if REASON in node.meta:
        return f"portable kernel: {node.meta[REASON]}"
    if is_qdq(node):
        return "portable kernel: the float boundary of ops without a cortex_m kernel"
    return "portable kernel: no cortex_m kernel for this op yet"


class CortexMPartitioner(Partitioner):
    def __init__(self, compile_spec: CortexMCompileSpec, additional_checks=None):
        self.compile_spec = compile_spec
        self.rejections: dict[str, tuple[str, str]] = {}
        super().__init__(DelegationSpec("CortexM", []))

    def ops_to_not_decompose(self, ep: ExportedProgram):
        """The table activations edge lowering would decompose (hardswish, silu, ...), kept whole where
        QuantizedActivationsAsTables takes them; by name when it takes every one (one decomposition pass)."""
        ops = list(ops_to_keep_whole())

        def keeps(node: torch.fx.Node) -> bool:
            return lowering_problem(node) is None

        if all(keeps(node) for node in ep.graph.nodes if node.op == "call_function" and node.target in ops):
            return ops, None
        return ops, keeps

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        self.rejections = {
            node.name: (op_name(node.target), _reason(node))
            for node in exported_program.graph.nodes
            if node.op == "call_function"
        }
        return PartitionResult(tagged_exported_program=exported_program, partition_tags={})
