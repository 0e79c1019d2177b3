"""What the rewrites of lowered TOSA graphs (the backends' passes) share: find who reads or
writes a tensor, build replacement ops, and swap them in."""

from __future__ import annotations

from typing import Callable, Iterator

import tosa_serializer as ts

from etarm.tosa_ir.graph import TosaGraph, TosaOp


def emitted(graph: TosaGraph, origin: str | None, build: Callable[[], None]) -> list[TosaOp]:
    """The ops ``build`` emits through ``graph``'s helpers, without adding them to the graph."""
    saved, saved_origin = graph.ops, graph.origin
    graph.ops, graph.origin = [], origin
    try:
        build()
        return graph.ops
    finally:
        graph.ops, graph.origin = saved, saved_origin


def ops_of(graph: TosaGraph, kind: ts.Op) -> Iterator[TosaOp]:
    """The ops of ``kind`` (e.g. ``ts.Op.TRANSPOSE``), in graph order."""
    return (op for op in graph.ops if op.op == kind)


def consumers(graph: TosaGraph) -> dict[str, list[TosaOp]]:
    """The ops reading each tensor, by tensor name."""
    found: dict[str, list[TosaOp]] = {}
    for op in graph.ops:
        for name in op.inputs:
            found.setdefault(name, []).append(op)
    return found


def producers(graph: TosaGraph) -> dict[str, TosaOp]:
    """The op writing each tensor, by tensor name."""
    return {name: op for op in graph.ops for name in op.outputs}


def single_consumer(readers: dict[str, list[TosaOp]], graph: TosaGraph, name: str) -> TosaOp | None:
    """The one op reading ``name`` (``readers`` from ``consumers``), or None if it is read by
    several or none, or is a graph output."""
    users = readers.get(name, [])
    return users[0] if len(users) == 1 and name not in graph.outputs else None


def replace(graph: TosaGraph, replacements: dict[int, list[TosaOp]]) -> None:
    """Replaces each op (by id) with its list of ops (empty: removed)."""
    graph.ops[:] = [new for op in graph.ops for new in replacements.get(id(op), [op])]


def transposes_reshaped(
    graph: TosaGraph, plan: Callable[[tuple[int, ...], list[int]], tuple[list[int], list[int]] | None]
) -> int:
    """Every TRANSPOSE for which ``plan(source shape, perm)`` gives (shape, perm) -> RESHAPE to
    that shape, TRANSPOSE by that perm, RESHAPE to the result; returns how many."""
    replacements = {}
    for op in ops_of(graph, ts.Op.TRANSPOSE):
        source, result = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        planned = plan(tuple(source.shape), list(op.attr_args[0]))
        if planned is None:
            continue
        sizes, perm = planned

        def build(source=source, result=result, sizes=sizes, perm=perm) -> None:
            graph.reshape_into(graph.transpose(graph.reshape(source, sizes), perm), result)

        replacements[id(op)] = emitted(graph, op.origin, build)
    replace(graph, replacements)
    return len(replacements)


def kernel_hw(graph: TosaGraph, op: TosaOp) -> tuple[int, int]:
    """The kernel height and width of a CONV2D or DEPTHWISE_CONV2D."""
    weights = graph.tensors[op.inputs[1]].shape  # CONV2D: [O, KH, KW, I]; DEPTHWISE_CONV2D: [KH, KW, C, M]
    return (weights[1], weights[2]) if op.op == ts.Op.CONV2D else (weights[0], weights[1])


def shape_independent_rescale(graph: TosaGraph, op: TosaOp) -> bool:
    """A RESCALE whose parameters are per tensor or per channel (not per position)."""
    return op.op == ts.Op.RESCALE and all(graph.constants.get(name) is not None for name in op.inputs[1:])
