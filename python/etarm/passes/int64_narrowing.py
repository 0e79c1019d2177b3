"""What the int64 passes share: narrowing int64 values to int32, and giving int64 back where needed.

TOSA 1.0 has no int64, so a pass turns an int64 value (a constant, a cast's result, an
index output, a graph input) into int32. ``Int64Narrowing`` then walks the graph in order,
recomputing each affected node's meta["val"]: a consumer that will be delegated (the
registry accepts it for the TOSA specification) keeps the int32 value; a consumer that
stays on CPU, an op torch only runs on int64 (one_hot, for one) and the graph
outputs get a local cast back to int64 right before them, so what runs on CPU and what
the program returns keep their int64 semantics. A narrowing every user of which had to
be undone with such a cast is reverted.
"""

from __future__ import annotations

import operator
from typing import Callable

import torch
from torch.export import ExportedProgram

import etarm.operators  # noqa: F401  (registers every visitor: rejection_reason asks them)
from etarm.lowering.registry import rejection_reason
from etarm.passes.base import ProgramPass
from etarm.passes.dtype_casts import NARROWING_CAST, RESTORING_CAST, insert_cast, value_dtype
from etarm.passes.fake_values import compute_value, fake_mode_of, same_types
from etarm.tosa_ir.specification import TosaSpecification

DEFAULT_SPEC = "TOSA-1.0+FP"


def as_spec(spec: TosaSpecification | str | None) -> TosaSpecification:
    if isinstance(spec, TosaSpecification):
        return spec
    return TosaSpecification.create_from_string(spec or DEFAULT_SPEC)


_FAILED = object()  # what _try_value returns when the op rejects its (narrowed) inputs


class Int64Narrowing:
    """Collects the values a pass narrowed, then propagates and repairs (``finish``)."""

    def __init__(self, graph: torch.fx.Graph, spec: TosaSpecification | str | None):
        self.graph = graph
        self.spec = as_spec(spec)
        self.fake_mode = fake_mode_of(graph)
        self._was_int64 = {n for n in graph.nodes if value_dtype(n) == torch.int64}
        self._sources: dict[torch.fx.Node, Callable[[], None] | None] = {}
        self._changed: set[torch.fx.Node] = set()

    # --- what the passes call -------------------------------------------------
    def narrowed(self, node: torch.fx.Node, undo: Callable[[], None] | None = None) -> None:
        """Records that ``node`` (meta["val"] already updated) yields int32 where it yielded int64.

        ``undo`` puts the int64 version back; it runs if every user needs int64 anyway.
        """
        self._was_int64.add(node)
        self._sources[node] = undo
        self._changed.add(node)

    def narrow_after(self, node: torch.fx.Node) -> torch.fx.Node:
        """Inserts an int32 cast after int64 ``node`` and moves all of its users onto it."""
        users = list(node.users)
        anchor = node.next
        while anchor.op == "placeholder":
            anchor = anchor.next
        cast = insert_cast(self.graph, node, torch.int32, before=anchor, marker=NARROWING_CAST)
        for user in users:
            user.replace_input_with(node, cast)
        self.narrowed(cast)
        return cast

    def recompute(self, node: torch.fx.Node) -> None:
        node.meta["val"] = compute_value(node, self.fake_mode)

    # --- propagation ------------------------------------------------------------
    def finish(self) -> bool:
        """Propagates the new dtypes, casts back to int64 where needed; True if the graph changed."""
        if not self._sources:
            return False
        for node in list(self.graph.nodes):
            if node.op == "output":
                self._restore(node, self._narrowed_inputs(node))
            elif node.op == "call_function" and node not in self._sources and not node.meta.get(RESTORING_CAST):
                if any(arg in self._changed for arg in node.all_input_nodes):
                    self._update(node)
        self._revert_useless()
        return bool(self._sources)

    def _narrowed_inputs(self, node: torch.fx.Node) -> list[torch.fx.Node]:
        return [a for a in node.all_input_nodes if a in self._was_int64 and value_dtype(a) == torch.int32]

    def _update(self, node: torch.fx.Node) -> None:
        old = node.meta.get("val")
        narrowed = self._narrowed_inputs(node)
        new = self._try_value(node)
        if narrowed and (new is _FAILED or not self._delegable(node, new)):
            self._restore(node, narrowed)
            new = self._try_value(node)
        if new is _FAILED:
            return  # keeps the old value: the op cannot be re-run on fake inputs
        node.meta["val"] = new
        if not same_types(old, new):
            self._changed.add(node)

    def _try_value(self, node: torch.fx.Node):
        try:
            return compute_value(node, self.fake_mode)
        except Exception:  # noqa: BLE001 - an op that rejects int32 inputs (one_hot) needs int64
            return _FAILED

    def _delegable(self, node: torch.fx.Node, value) -> bool:
        if node.target is operator.getitem:
            return True  # follows the multi-output node it reads, like the partitioner does
        saved = node.meta.get("val")
        node.meta["val"] = value
        try:
            return rejection_reason(node, self.spec) is None
        except Exception:  # noqa: BLE001 - a check that cannot judge the node keeps it on CPU
            return False
        finally:
            node.meta["val"] = saved

    def _restore(self, consumer: torch.fx.Node, narrowed: list[torch.fx.Node]) -> None:
        for value in narrowed:
            cast = insert_cast(self.graph, value, torch.int64, before=consumer, marker=RESTORING_CAST)
            consumer.replace_input_with(value, cast)

    def _revert_useless(self) -> None:
        for source, undo in list(self._sources.items()):
            users = list(source.users)
            if not users or not all(user.meta.get(RESTORING_CAST) for user in users):
                continue
            if source.meta.get(NARROWING_CAST):
                replacement = source.args[0]
            elif undo is not None:
                undo()
                replacement = source
            else:
                continue
            for user in users:
                user.replace_all_uses_with(replacement)
                self.graph.erase_node(user)
            if replacement is not source:
                self.graph.erase_node(source)
            del self._sources[source]


class Int64NarrowingPass(ProgramPass):
    """Base of the int64 passes: ``narrow`` picks what to narrow, ``Int64Narrowing.finish`` the rest."""

    def __init__(self, tosa_spec=None):
        """``tosa_spec`` decides which consumers will be delegated (default TOSA-1.0+FP)."""
        super().__init__()
        self.tosa_spec = tosa_spec

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        narrowing = Int64Narrowing(graph_module.graph, self.tosa_spec)
        self.narrow(graph_module, program, narrowing)
        return narrowing.finish()

    def narrow(
        self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None, narrowing: Int64Narrowing
    ) -> None:
        raise NotImplementedError
