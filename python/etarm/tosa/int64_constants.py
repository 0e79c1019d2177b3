"""Partition-time check: a node reading an int64 constant that int32 cannot hold stays on CPU.

TOSA 1.0 has no int64; constants are narrowed to int32 when lowered (TosaGraph.bind_const),
which fails for values outside int32. The int64 passes leave such constants int64, so
their consumers are kept out of partitions here instead of failing the lowering.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.tosa_ir.mapping import fits_int32

_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def unrepresentable_int64_constants(program: ExportedProgram) -> set[str]:
    """Names of the placeholders holding int64 constants with values outside int32."""
    names = set()
    for spec in program.graph_signature.input_specs:
        if spec.kind not in _CONSTANT_KINDS or spec.target is None:
            continue
        value = program.state_dict.get(spec.target, program.constants.get(spec.target))
        if isinstance(value, torch.Tensor) and value.dtype == torch.int64 and not fits_int32(value):
            names.add(spec.arg.name)
    return names


def int64_constant_check(program: ExportedProgram):
    """An additional partitioner check rejecting nodes that read such constants."""
    names = unrepresentable_int64_constants(program)

    def check(node: torch.fx.Node, spec) -> str | None:
        for arg in node.all_input_nodes:
            if arg.name in names:
                return f"input '{arg.name}' is an int64 constant with values outside int32 (TOSA 1.0 has no int64)"
        return None

    return check
