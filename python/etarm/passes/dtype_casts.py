"""Recognising and inserting dtype casts in ATen and edge graphs.

A cast in an edge graph is ``dim_order_ops._to_dim_order_copy`` (ExecuTorch's default) or
``aten._to_copy`` (with ``_skip_dim_order``); an ATen graph from torch.export has
``aten._to_copy``. Inserted casts use whichever form the graph already speaks.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.dialects.edge._ops import EdgeOpOverload

from etarm.passes.fake_values import fake_mode_of_value

CAST_OPS = frozenset({"aten._to_copy.default", "dim_order_ops._to_dim_order_copy.default"})

# Meta keys marking casts the int64 passes insert, so later passes recognise them.
NARROWING_CAST = "etarm_int64_narrowing_cast"  # int64 -> int32 after an int64 value
RESTORING_CAST = "etarm_int64_restoring_cast"  # int32 -> int64 before a consumer that needs int64


def aten_name(target) -> str | None:
    """'aten.arange.start_step' for an ATen or edge OpOverload, None for other callables."""
    if isinstance(target, EdgeOpOverload):
        target = target._op
    if not isinstance(target, torch._ops.OpOverload):
        return None
    return f"{target._schema.name.replace('::', '.')}.{target._overloadname}"


def value_dtype(node) -> torch.dtype | None:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return value.dtype if isinstance(value, torch.Tensor) else None


def is_cast(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and aten_name(node.target) in CAST_OPS and "dtype" in node.kwargs


def only_read_through_casts(node: torch.fx.Node) -> bool:
    """Whether every user of ``node`` casts it (so a narrowing cast after it would add nothing)."""
    return all(is_cast(user) for user in node.users)


def _cast_target(graph: torch.fx.Graph):
    edge = False
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        if isinstance(node.target, EdgeOpOverload):
            edge = True
            if aten_name(node.target) == "aten._to_copy.default":
                return exir_ops.edge.aten._to_copy.default
    return exir_ops.edge.dim_order_ops._to_dim_order_copy.default if edge else torch.ops.aten._to_copy.default


def insert_cast(graph: torch.fx.Graph, source: torch.fx.Node, dtype: torch.dtype, *, before: torch.fx.Node, marker: str) -> torch.fx.Node:
    """Inserts ``source.to(dtype)`` right before ``before``; its meta["val"] is filled in."""
    target = _cast_target(graph)
    value = source.meta["val"]
    kwargs = {"dtype": dtype}
    if aten_name(target) == "dim_order_ops._to_dim_order_copy.default":
        kwargs["dim_order"] = list(range(value.dim()))
    with graph.inserting_before(before):
        cast = graph.call_function(target, (source,), kwargs)
    cast.meta.update({k: v for k, v in source.meta.items() if k in ("stack_trace", "nn_module_stack", "source_fn_stack")})
    with fake_mode_of_value(value):
        cast.meta["val"] = value.to(dtype)
    cast.meta[marker] = True
    return cast


def set_cast_dtype(node: torch.fx.Node, dtype: torch.dtype) -> None:
    node.kwargs = {**node.kwargs, "dtype": dtype}
