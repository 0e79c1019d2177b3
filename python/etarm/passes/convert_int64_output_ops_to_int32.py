"""ConvertInt64OutputOpsToInt32Pass: ops whose result is int64 produce int32 instead.

A cast to int64 (``_to_copy`` / ``_to_dim_order_copy`` with dtype=int64) casts to int32;
an index output (argmax/argmin, the indices of max.dim/min.dim/topk/sort/...) gets an
int32 cast right after it that its users read. A consumer outside the delegable set that
needs int64, and the graph outputs, get a cast back (see int64_narrowing).
"""

from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram

from etarm.passes.dtype_casts import RESTORING_CAST, aten_name, is_cast, only_read_through_casts, value_dtype
from etarm.passes.int64_narrowing import Int64Narrowing, Int64NarrowingPass

# Ops whose (single) result is an int64 index tensor.
INDEX_OPS = frozenset({"aten.argmax.default", "aten.argmin.default"})

# Multi-output ops one of whose results (read through getitem) is an int64 index tensor.
INDEX_TUPLE_OPS = frozenset(
    {
        "aten.max.dim",
        "aten.min.dim",
        "aten.topk.default",
        "aten.sort.default",
        "aten.sort.stable",
        "aten.kthvalue.default",
        "aten.mode.default",
        "aten.median.dim",
        "aten.nanmedian.dim",
        "aten.cummax.default",
        "aten.cummin.default",
        "aten.max_pool2d_with_indices.default",
        "aten.max_pool3d_with_indices.default",
        "aten.adaptive_max_pool2d.default",
    }
)


def _is_index_output(node: torch.fx.Node) -> bool:
    if value_dtype(node) != torch.int64:
        return False
    if aten_name(node.target) in INDEX_OPS:
        return True
    source = node.args[0] if node.target is operator.getitem else None
    return isinstance(source, torch.fx.Node) and aten_name(source.target) in INDEX_TUPLE_OPS


def _is_cast_to_int64(node: torch.fx.Node) -> bool:
    return (
        is_cast(node)
        and node.kwargs["dtype"] == torch.int64
        and not node.meta.get(RESTORING_CAST)
        and value_dtype(node.args[0]) not in (None, torch.int64)
    )


class ConvertInt64OutputOpsToInt32Pass(Int64NarrowingPass):
    """Narrows int64 results of casts and index ops (argmax, ...) to int32."""

    def narrow(
        self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None, narrowing: Int64Narrowing
    ) -> None:
        for node in list(graph_module.graph.nodes):
            if node.op != "call_function":
                continue
            if _is_cast_to_int64(node):
                self._cast_to_int32(node, narrowing)
            elif _is_index_output(node) and node.users and not only_read_through_casts(node):
                narrowing.narrow_after(node)

    @staticmethod
    def _cast_to_int32(node: torch.fx.Node, narrowing: Int64Narrowing) -> None:
        old_value = node.meta["val"]
        node.kwargs = {**node.kwargs, "dtype": torch.int32}
        narrowing.recompute(node)

        def undo():
            node.kwargs = {**node.kwargs, "dtype": torch.int64}
            node.meta["val"] = old_value

        narrowing.narrowed(node, undo)
