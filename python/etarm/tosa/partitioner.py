"""TOSAPartitioner: tags the largest connected groups of lowerable nodes for a TOSA backend."""

from __future__ import annotations

import operator
from typing import Callable

import executorch.kernels.quantized  # noqa: F401  (Q/DQ nodes left on CPU need their out variants in to_executorch)
import torch
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch.export import ExportedProgram
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

import etarm.operators  # noqa: F401  (registers every visitor)
from etarm.lowering.quantized_support import QuantizedRegion, quantization_reason, uses_quantized_region
from etarm.lowering.registry import preserved_ops, rejection_reason
from etarm.op_names import op_name
from etarm.tosa.backend import TOSABackend
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.int64_constants import int64_constant_check
from etarm.tosa_ir.specification import TosaSpecification

# A node check a user or target adds: returns a reason to keep the node on CPU, or None.
AdditionalCheck = Callable[[torch.fx.Node, TosaSpecification], "str | None"]


class _RecordingSupport(OperatorSupportBase):
    """Asks the registry and the additional checks; remembers why nodes were rejected.

    For INT-only specifications float ops also need quantization parameters, and
    Q/DQ nodes are placed by ``QuantizedRegion`` (see tosa/quantized_support.py) once
    ``prepare_quantized_region`` has seen the whole graph (``forced_reasons``: ops to
    keep on CPU besides).
    """

    def __init__(self, spec: TosaSpecification, additional_checks: list[AdditionalCheck] | None):
        self.spec = spec
        self.additional_checks = list(additional_checks or [])
        self.rejections: dict[str, tuple[str, str]] = {}
        self.region: QuantizedRegion | None = None

    def prepare_quantized_region(
        self, graph_module: torch.fx.GraphModule, forced_reasons: dict[str, str] | None = None
    ) -> None:
        if uses_quantized_region(self.spec):
            self.region = QuantizedRegion(graph_module, self.op_reason, forced_reasons)

    def op_reason(self, node: torch.fx.Node) -> str | None:
        reason = rejection_reason(node, self.spec)
        for check in self.additional_checks:
            if reason is None:
                reason = check(node, self.spec)
        if reason is None and uses_quantized_region(self.spec):
            reason = quantization_reason(node, self.spec)
        return reason

    def is_node_supported(self, submodules, node: torch.fx.Node) -> bool:
        if node.op != "call_function":
            return False
        if node.target is operator.getitem:
            return self.is_node_supported(submodules, node.args[0])
        reason = self.region.reason(node) if self.region is not None else self.op_reason(node)
        if reason is not None:
            self.rejections[node.name] = (op_name(node.target), reason)
            return False
        return True


def _keeps_by_name(op: torch._ops.OpOverload) -> bool:
    """An op ExecuTorch can keep undecomposed by name: one that neither mutates nor aliases its
    inputs (functionalization must still rewrite those), and not _to_copy, which it always
    decomposes into its dim-order form."""
    schema = op._schema
    return (
        not schema.is_mutable
        and all(ret.alias_info is None for ret in schema.returns)
        and op is not torch.ops.aten._to_copy.default
    )


class TOSAPartitioner(Partitioner):
    backend = TOSABackend

    def __init__(self, compile_spec: TosaCompileSpec, additional_checks: list[AdditionalCheck] | None = None):
        self.compile_spec = compile_spec
        self.delegation_spec = DelegationSpec(self.backend.__name__, compile_spec.to_list())
        self.additional_checks = additional_checks
        # node name -> (operator, reason) for everything left on CPU by the last partition().
        self.rejections: dict[str, tuple[str, str]] = {}

    @property
    def tosa_spec(self) -> TosaSpecification:
        return self.compile_spec.tosa_spec

    def ops_with_per_node_check(self, ep: ExportedProgram):
        """Every op some visitor lowers whole, and the check that keeps a node of one only when
        that node lowers (one it cannot lower decomposes as usual)."""
        support = _RecordingSupport(self.tosa_spec, self.additional_checks)
        return preserved_ops(), lambda node: support.is_node_supported(None, node)

    def ops_to_not_decompose(self, ep: ExportedProgram):
        """ops_with_per_node_check, without the check when every node of those ops in ``ep``
        lowers whole: ExecuTorch then keeps the ops by name with one decomposition pass where
        the check costs it two more (each re-traces the whole program)."""
        ops, check = self.ops_with_per_node_check(ep)
        if ep.graph_signature.user_inputs_to_mutate:
            # The per-node check's passes write a mutated input back with a copy the partition
            # runs; with the ops kept by name there is no such copy.
            return ops, check
        kept = set(ops)
        if all(check(node) for node in ep.graph.nodes if node.op == "call_function" and node.target in kept):
            return [op for op in ops if _keeps_by_name(op)], None
        return ops, check

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        checks = list(self.additional_checks or [])
        if not uses_quantized_region(self.tosa_spec):
            # INT: int64 constants are per-channel zero points, which only Q/DQ nodes read.
            checks.append(int64_constant_check(exported_program))
        graph_module = exported_program.graph_module
        forced: dict[str, str] = {}
        while True:  # each round keeps more ops on CPU, so this ends
            support = _RecordingSupport(self.tosa_spec, checks)
            support.prepare_quantized_region(graph_module, forced)
            partitions = CapabilityBasedPartitioner(
                graph_module, support, allows_single_node_partition=True
            ).propose_partitions()
            # INT: a dequantize shared by ops the partitioner split apart folds into none of them.
            split = support.region.split_dequantizers(partitions) if support.region is not None else {}
            if not split:
                break
            forced.update(split)
        tags = {}
        for partition in partitions:
            tag = f"tag{partition.id}"
            for node in partition.nodes:
                node.meta["delegation_tag"] = tag
            tags[tag] = self.delegation_spec
        tag_constant_data(exported_program)
        self.rejections = support.rejections
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)
