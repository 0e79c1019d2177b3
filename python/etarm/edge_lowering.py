"""ExecuTorch's ``to_edge_transform_and_lower`` with one decomposition pass instead of two.

ExecuTorch first functionalizes the exported program (``run_decompositions({})``) and then
decomposes it with its default table less the ops the partitioner keeps whole: two re-traces
of the whole program, each as long as an export. One ``run_decompositions`` with that table
functionalizes and decomposes in a single trace to the same graph. ``lower_to_edge`` does that
where the partitioner keeps its ops by name (no per-node check); for a per-node check, a program
with in-place ops or more than one partitioner it calls ExecuTorch's function unchanged.
"""

from __future__ import annotations

import torch
from executorch.exir import EdgeCompileConfig, EdgeProgramManager, to_edge_transform_and_lower
from executorch.exir.backend.partitioner import Partitioner
from executorch.exir.program._program import (
    _default_decomposition_table,
    _generate_edge_program,
    _sanity_check_graph_for_non_decomp_ops,
    lift_constant_tensor_pass,
)
from torch.export import ExportedProgram

_METHOD = "forward"


def _kept_by_name(partitioner: Partitioner, program: ExportedProgram) -> list | None:
    """The ops ``partitioner`` keeps whole in ``program`` by name, or None when it asks for a per-node check."""
    ops, check = partitioner.ops_to_not_decompose(program)
    return None if check is not None else list(ops)


def _writes_in_place(program: ExportedProgram) -> bool:
    """An exported program's in-place ops become input or buffer writes only once functionalized,
    which is what ExecuTorch's partitioners decide on."""
    return any(
        node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable
        for node in program.graph.nodes
    )


def executorchs_lowering(
    program: ExportedProgram, transform_passes, partitioners: list[Partitioner], config: EdgeCompileConfig
) -> EdgeProgramManager:
    """ExecuTorch's own ``to_edge_transform_and_lower``, with lower_to_edge's arguments."""
    return to_edge_transform_and_lower(
        program, transform_passes=transform_passes, partitioner=partitioners, compile_config=config
    )


def lower_to_edge(
    program: ExportedProgram,
    transform_passes,
    partitioners: list[Partitioner],
    config: EdgeCompileConfig,
) -> EdgeProgramManager:
    """What ``to_edge_transform_and_lower(program, transform_passes, partitioners, compile_config=config)`` returns."""
    if len(partitioners) > 1 or _writes_in_place(program):
        return executorchs_lowering(program, transform_passes, partitioners, config)
    table = _default_decomposition_table()
    kept: list = []  # the kept ops ExecuTorch's table would otherwise decompose
    ops: list = []
    if partitioners:
        prepared = partitioners[0].transform_for_pre_decomposition(program)
        ops = _kept_by_name(partitioners[0], prepared)
        if ops is None:
            return executorchs_lowering(program, transform_passes, partitioners, config)
        kept = [op for op in ops if table.pop(op, None) is not None]
    else:
        prepared = program
        for op in config.preserve_ops:
            table.pop(op, None)
    decomposed = prepared.run_decompositions(table)
    # ExecuTorch asks the partitioner on the functionalized program; every node of a kept op there
    # is also in ``decomposed`` (kept ops are not decomposed), so a check passing here passes there.
    if partitioners and _kept_by_name(partitioners[0], decomposed) is None:
        return executorchs_lowering(program, transform_passes, partitioners, config)

    edge_program = _generate_edge_program(config, decomposed, preserve_ops=kept)
    config._core_aten_ops_exception_list = list(set(config._core_aten_ops_exception_list) | set(kept))
    manager = EdgeProgramManager({_METHOD: edge_program}, None, config, kept)
    if transform_passes is not None:
        manager = manager.transform(transform_passes)
        lift_constant_tensor_pass(manager.exported_program(_METHOD))
    for partitioner in partitioners:
        manager = manager.to_backend({_METHOD: partitioner})
        _sanity_check_graph_for_non_decomp_ops(
            _METHOD,
            manager.exported_program(_METHOD),
            set(ops),
            None,
            partitioner_name=type(partitioner).__name__,
            generate_error=True,
        )
    return manager
