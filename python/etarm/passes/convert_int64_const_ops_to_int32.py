"""ConvertInt64ConstOpsToInt32Pass: int64 constants whose values fit become int32.

Covers the tensor-creating ops (full, arange, eye, linspace, ones, zeros, scalar_tensor and
their ``*_like`` / ``new_*`` forms) and, when run on an ExportedProgram, the lifted int64
constant tensors (constants, and parameters/buffers the graph does not mutate). Values
outside int32 (or symbolic, so unprovable) are left as int64. Consumers that stay on CPU
or need int64 get a cast back (see int64_narrowing).
"""

from __future__ import annotations

import functools

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.passes.dtype_casts import aten_name, value_dtype
from etarm.passes.int64_narrowing import Int64Narrowing, Int64NarrowingPass
from etarm.tosa_ir.mapping import fits_int32


def _always(node: torch.fx.Node) -> list:
    return []


def _arg(index: int):
    """The values of an op whose only data is one scalar argument (a fill value)."""
    return lambda node: [node.args[index]] if len(node.args) > index else [node.kwargs.get("fill_value")]


def _range_bounds(node: torch.fx.Node) -> list:
    # arange(end), arange(start, end[, step]), linspace(start, end, steps): every value lies between start and end.
    name = aten_name(node.target)
    if name == "aten.arange.default":
        return [0, node.args[0]]
    return [node.args[0], node.args[1]]


# creation op -> the values it can produce that must fit in int32
_CREATION_OPS = {
    "aten.full.default": _arg(1),
    "aten.full_like.default": _arg(1),
    "aten.new_full.default": _arg(2),
    "aten.scalar_tensor.default": _arg(0),
    "aten.arange.default": _range_bounds,
    "aten.arange.start": _range_bounds,
    "aten.arange.start_step": _range_bounds,
    "aten.linspace.default": _range_bounds,
    "aten.eye.default": _always,
    "aten.eye.m": _always,
    "aten.ones.default": _always,
    "aten.zeros.default": _always,
    "aten.ones_like.default": _always,
    "aten.zeros_like.default": _always,
    "aten.new_ones.default": _always,
    "aten.new_zeros.default": _always,
}

_LIFTED_KINDS = (InputKind.CONSTANT_TENSOR, InputKind.BUFFER, InputKind.PARAMETER)


class ConvertInt64ConstOpsToInt32Pass(Int64NarrowingPass):
    """Makes int64 constants and creation ops whose values fit int32 produce int32 (TOSA has no int64)."""

    def narrow(
        self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None, narrowing: Int64Narrowing
    ) -> None:
        for node in list(graph_module.graph.nodes):
            if node.op == "call_function" and self._is_narrowable_creation(node):
                self._narrow_creation(node, narrowing)
        if program is not None:
            self._narrow_lifted_constants(program, narrowing)

    @staticmethod
    def _is_narrowable_creation(node: torch.fx.Node) -> bool:
        values = _CREATION_OPS.get(aten_name(node.target))
        return values is not None and value_dtype(node) == torch.int64 and all(fits_int32(v) for v in values(node))

    @staticmethod
    def _narrow_creation(node: torch.fx.Node, narrowing: Int64Narrowing) -> None:
        old_kwargs, old_value = dict(node.kwargs), node.meta["val"]
        node.kwargs = {**node.kwargs, "dtype": torch.int32}
        narrowing.recompute(node)

        def undo():
            node.kwargs = old_kwargs
            node.meta["val"] = old_value

        narrowing.narrowed(node, undo)

    @staticmethod
    def _narrow_lifted_constants(program: ExportedProgram, narrowing: Int64Narrowing) -> None:
        mutated = set(program.graph_signature.buffers_to_mutate.values())
        placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
        for spec in program.graph_signature.input_specs:
            if spec.kind not in _LIFTED_KINDS or spec.target in mutated:
                continue
            store = program.constants if spec.target in program.constants else program.state_dict
            tensor = store.get(spec.target)
            node = placeholders.get(spec.arg.name)
            if node is None or not isinstance(tensor, torch.Tensor) or tensor.dtype != torch.int64 or not fits_int32(tensor):
                continue
            narrowed = tensor.detach().to(torch.int32)
            store[spec.target] = torch.nn.Parameter(narrowed, requires_grad=False) if isinstance(tensor, torch.nn.Parameter) else narrowed
            old_value = node.meta["val"]
            with narrowing.fake_mode:
                node.meta["val"] = old_value.to(torch.int32)
            narrowing.narrowed(node, functools.partial(_put_back, store, spec.target, tensor, node, old_value))


def _put_back(store: dict, target: str, tensor: torch.Tensor, node: torch.fx.Node, value) -> None:
    store[target] = tensor
    node.meta["val"] = value
