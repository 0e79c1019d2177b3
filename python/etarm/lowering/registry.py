"""The ATen -> TOSA node-visitor registry.

Each operator module defines one ``NodeVisitor`` subclass and decorates it with
``@register``; importing ``etarm.operators`` imports every module, so adding an
operator is adding a file. The registry answers two questions for every fx node:
can it be lowered for this TOSA specification (``rejection_reason``), and how
(``visitor_for(...).define``).
"""

from __future__ import annotations

from typing import ClassVar

import torch

from etarm.lowering.dtype_rules import BF16, every_tensor_dtype, extension_float_reason
from etarm.op_names import op_name
from etarm.tosa_ir.specification import TosaSpecification


class NodeVisitor:
    """Lowers the fx nodes of one ATen operator (possibly several overloads) to TOSA."""

    targets: ClassVar[tuple[str, ...]] = ()
    # Profiles the visitor can lower for; a node is rejected for a spec naming neither.
    profiles: ClassVar[frozenset[str]] = frozenset({"FP", "INT"})
    # ATen ops (OpOverloads) that edge lowering must keep whole for this visitor instead of
    # decomposing them, e.g. torch.ops.aten.linear.default. Kept only where check() passes.
    preserved_ops: ClassVar[tuple] = ()
    # INT profile: True when define() reads the quantization parameters itself (see
    # etarm.lowering.quantized). Otherwise the node's integer inputs and output must
    # share one scale and zero point, so values pass through unchanged (data movement).
    handles_qparams: ClassVar[bool] = False
    # The FP extensions' float types (dtype_rules.EXTENSION_FLOATS) define() lowers: bf16 for
    # every float operator, as TOSA's bf16 extension covers every PRO-FP operator; a visitor
    # also lowering fp8 (data movement, products, pools, casts) names FP8 too; one that
    # cannot lower bf16 names none. The registry checks them and their extension before check().
    extension_floats: ClassVar[frozenset[torch.dtype]] = BF16

    def check(self, node: torch.fx.Node, spec: TosaSpecification) -> str | None:
        """Returns why ``node`` cannot be lowered for ``spec``, or None if it can."""
        return None

    def define(self, node: torch.fx.Node, graph) -> None:
        raise NotImplementedError


_VISITORS: dict[str, NodeVisitor] = {}


def register(cls: type[NodeVisitor]) -> type[NodeVisitor]:
    if not cls.targets:
        raise TypeError(f"{cls.__name__} names no targets")
    for target in cls.targets:
        if target in _VISITORS:
            raise TypeError(f"{target} is lowered by both {type(_VISITORS[target]).__name__} and {cls.__name__}")
        _VISITORS[target] = cls()
    return cls


def visitor_for(node: torch.fx.Node) -> NodeVisitor | None:
    return _VISITORS.get(op_name(node.target))


def registered_targets() -> dict[str, NodeVisitor]:
    return dict(_VISITORS)


def preserved_ops() -> list:
    """Every ATen op some visitor lowers whole (see NodeVisitor.preserved_ops)."""
    return sorted({op for v in _VISITORS.values() for op in v.preserved_ops}, key=str)


def rejection_reason(node: torch.fx.Node, spec: TosaSpecification) -> str | None:
    """Why ``node`` cannot be lowered for ``spec`` (None when it can)."""
    visitor = visitor_for(node)
    if visitor is None:
        return f"no TOSA lowering for {op_name(node.target)}"
    if not (visitor.profiles & spec.profiles):
        return f"{op_name(node.target)} is not lowered for {spec}"
    reason = extension_float_reason(op_name(node.target), every_tensor_dtype(node), spec, visitor.extension_floats)
    return reason or visitor.check(node, spec)
