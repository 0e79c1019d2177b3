"""QuantizedActivationsAsTables: dequantize -> f -> quantize, for every function of one tensor the TOSA INT lowering
makes a table of (sigmoid, tanh, hardswish, hardsigmoid, gelu, silu, exp, log, erf, elu, leaky_relu, mish, softplus,
...), as one cortex_m.quantized_table reading a table computed here, ahead of time, with the TOSA lowering's own
functions and tables (``lowering/quantized_lookup.py``): int8, 256 entries equal to the PT2E model's results; int16
(a16w8), TOSA's interpolated 513-entry table where it stays within two steps, else its entries patched with the exact
results of the segments they miss (ops/quantized_table.py), or the 65536 exact results where that is not smaller.

Which ops and which function: the ATen -> TOSA visitor of the node (the registry) says it, so the Cortex-M tables
follow the TOSA lowering's list and parameters (gelu's approximation, leaky_relu's slope, pow by a number, ...).
ExecuTorch's edge decomposition would split hardswish, silu, mish, ... into float arithmetic between the dequantize
and the quantize; ``ops_to_keep_whole`` tells CortexMPartitioner to keep those whole where this pass takes them.

The op is elementwise, so it runs in any layout: a table reading a permute of an NHWC result (a convolution's) reads
that result and permutes its own instead, so CancelLayoutPermutes removes the round trip to the next NHWC op.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import torch
from executorch.backends.transforms.utils import create_constant_placeholder
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

import etarm.operators  # noqa: F401  (registers the ATen -> TOSA visitors this pass asks)
from etarm.cortex_m.ops.quantized_table import INT16_EXACT_ENTRIES, patched_int16_table
from etarm.cortex_m.passes.matching import lower_each, pattern_problem, replace_pattern
from etarm.cortex_m.passes.nhwc import PERMUTE, permute
from etarm.lowering.quantized import TableLowering, int16_table_values
from etarm.lowering.quantized_lookup import (
    INT16_TABLE_MAX_LSB,
    Int8LookupLowering,
    LookupLowering,
    PairLookupLowering,
    lookup_table_values,
)
from etarm.lowering.registry import registered_targets, visitor_for
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

TABLE = exir_ops.edge.cortex_m.quantized_table.default
Function = Callable[[torch.Tensor], torch.Tensor]


def _is_table_visitor(visitor) -> bool:
    """A visitor whose INT lowering is a lookup of a function of one tensor (glu's halves and products are not)."""
    if isinstance(visitor, LookupLowering):
        return type(visitor).define_quantized is LookupLowering.define_quantized
    return isinstance(visitor, (TableLowering, Int8LookupLowering, PairLookupLowering))


@cache
def table_op_names() -> frozenset[str]:
    """The ATen ops ('aten.sigmoid.default', ...) whose quantized nodes the TOSA INT lowering looks up in a table."""
    return frozenset(name for name, visitor in registered_targets().items() if _is_table_visitor(visitor))


@cache
def ops_to_keep_whole() -> tuple:
    """The table ops that ExecuTorch's edge lowering would decompose (hardswish, silu, mish, ...)."""
    names = table_op_names()
    ops = {op for name, visitor in registered_targets().items() if name in names for op in visitor.preserved_ops}
    return tuple(sorted((op for op in ops if op_name(op) in names), key=op_name))


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def table_function(node: torch.fx.Node) -> tuple[Function, int] | str:
    """(f, i): ``node``'s result is f(its argument i), the function the TOSA INT lowering tabulates; or why not."""
    visitor = visitor_for(node)
    name = op_name(node.target)
    if visitor is None or not _is_table_visitor(visitor):
        return f"{name} is not a function the TOSA INT lowering looks up in a table"
    if isinstance(visitor, LookupLowering):
        reason = visitor.parameter_reason(node)
        return reason if reason is not None else (visitor.quantized_function(node), visitor.tensor_index)
    if isinstance(visitor, TableLowering):
        return visitor.table_function, 0
    if isinstance(visitor, Int8LookupLowering):
        return visitor.function, 0
    a, b = node.args[:2]
    if _is_number(b):
        return (lambda x: visitor.function(x, b)), 0
    if _is_number(a):
        return (lambda x: visitor.function(a, x)), 1
    return f"{name} of two tensors: a table of one tensor's values cannot hold it"


def lowering_problem(node: torch.fx.Node) -> str | None:
    """Why QuantizedActivationsAsTables leaves ``node`` (None when it becomes a quantized_table)."""
    found = table_function(node)
    if isinstance(found, str):
        return found
    return pattern_problem(node, [node.args[found[1]]], (torch.int8, torch.int16))


class QuantizedActivationsAsTables(ProgramPass):
    """Replaces dequantize -> f -> quantize (int8, or symmetric int16) by cortex_m.quantized_table(x, table)."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        changed = lower_each(graph, table_op_names(), lambda node: self._lower(program, graph, node))
        if changed:
            for node in [n for n in graph.nodes if n.target == TABLE]:
                _read_before_permute(graph, node)
        return changed

    @staticmethod
    def _lower(program: ExportedProgram | None, graph: torch.fx.Graph, node: torch.fx.Node) -> str | None:
        problem = lowering_problem(node)
        if problem is not None:
            return problem
        if program is None:
            return "its table cannot be added without the program"
        function, index = table_function(node)
        dequantize = node.args[index]
        source, target = qparams_of(dequantize), qparams_of(next(iter(node.users)))
        values = lookup_table_values(function, source, target)
        if len(values) == INT16_EXACT_ENTRIES:
            values = _patched_where_smaller(function, source, target, values)
        values = torch.from_numpy(values).to(target.dtype)
        with graph.inserting_before(next(n for n in graph.nodes if n.op == "placeholder")):
            table = create_constant_placeholder(program, graph, f"{node.name}_table", InputKind.PARAMETER, values)
        replace_pattern(graph, node, TABLE, [dequantize.args[0], table])
        return None


def _patched_where_smaller(function: Function, source, target, exact: np.ndarray) -> np.ndarray:
    """The TOSA lowering's interpolated entries patched with the exact results of the segments they miss by more than
    INT16_TABLE_MAX_LSB steps, where that is smaller than the 65536 exact results."""
    with np.errstate(invalid="ignore"):
        entries = int16_table_values(lambda x: torch.nan_to_num(function(x), nan=0.0), source, target)
    patched = patched_int16_table(entries, exact, INT16_TABLE_MAX_LSB)
    return exact if patched is None else patched


def _read_before_permute(graph: torch.fx.Graph, table: torch.fx.Node) -> None:
    """table(permute(x)) -> permute(table(x)) when the table is the permute's only reader (the same values)."""
    source = table.args[0]
    if not (isinstance(source, torch.fx.Node) and source.target == PERMUTE and len(source.users) == 1):
        return
    table.args = (source.args[0], *table.args[1:])
    value = source.args[0].meta["val"]
    with value.fake_mode:
        table.meta["val"] = torch.empty_like(value)
    with graph.inserting_after(table):
        moved = permute(graph, table, list(source.args[1]))
    table.replace_all_uses_with(moved, delete_user_cb=lambda user: user is not moved)
    graph.erase_node(source)
