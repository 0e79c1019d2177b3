"""AdditiveMasksAsWhere: ``x + mask`` with a constant mask holding -inf becomes ``where(masked, -inf, x)`` before annotation.

Llama-style models build a causal mask as a triu of -inf (or a buffer of one) and add it to
the attention scores. Quantized as it stands, that mask has no finite range: its observer
ignores the infinities, its scale becomes inf and the integer add cannot be rescaled. A
where with -inf is what masked_fill gives (LiftScalarOperands): the -inf is quantized with
x's parameters, to x's smallest integer, and the mask itself is a bool constant. Finite
entries of the mask besides the -inf ones stay an add of their own.
"""

from __future__ import annotations

import math
import operator
from typing import Callable

import torch

from etarm.op_names import op_name
from etarm.passes.base import AnnotationPass
from etarm.passes.fold_constant_weights import deterministic, evaluate
from etarm.quantization.annotation import is_float_tensor

_ADDS = ("aten.add.Tensor",)


class AdditiveMasksAsWhere(AnnotationPass):
    """Rewrites float adds of a constant tensor holding -inf as a where that selects -inf."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return additive_masks_as_where(model, lambda node: quantizer.config_for(node) is not None)


class _Constants:
    """The values of nodes computed from constants alone (parameters, buffers, creation ops
    such as full), evaluated on demand; None for a node that depends on an input."""

    def __init__(self, model: torch.fx.GraphModule):
        self._model = model
        self._values: dict[torch.fx.Node, object] = {}

    def value(self, node: torch.fx.Node):
        if node in self._values:
            return self._values[node]
        result = None
        if node.op == "get_attr":
            result = operator.attrgetter(node.target)(self._model)
        elif node.op == "call_function" and deterministic(node):
            inputs = {arg: self.value(arg) for arg in node.all_input_nodes}
            if all(value is not None for value in inputs.values()):
                result = evaluate(node, inputs)
        self._values[node] = result
        return result


def _constant(model: torch.fx.GraphModule, before: torch.fx.Node, stem: str, value: torch.Tensor) -> torch.fx.Node:
    name = f"_etarm_{stem}_{before.name}"
    while hasattr(model, name):
        name += "_"
    model.register_buffer(name, value)
    with model.graph.inserting_before(before):
        node = model.graph.get_attr(name)
    fake_mode = getattr(before.meta["val"], "fake_mode", None)
    node.meta["val"] = fake_mode.from_tensor(value) if fake_mode is not None else value
    return node


def _mask_operand(node: torch.fx.Node, constants: _Constants) -> int | None:
    """The position (0 or 1) of ``node``'s operand that is a constant float tensor holding
    -inf (and no +inf or NaN), else None."""
    for index, arg in enumerate(node.args[:2]):
        if not isinstance(arg, torch.fx.Node):
            continue
        value = constants.value(arg)
        if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            continue
        if torch.isneginf(value).any() and not (torch.isposinf(value).any() or torch.isnan(value).any()):
            return index
    return None


def additive_masks_as_where(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces each add of a -inf mask that ``wants`` accepts; returns how many."""
    graph = model.graph
    constants = _Constants(model)
    rewritten = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or op_name(node.target) not in _ADDS or not is_float_tensor(node):
            continue
        if len(node.args) != 2 or node.kwargs.get("alpha", 1) != 1 or not wants(node):
            continue
        index = _mask_operand(node, constants)
        if index is None:
            continue
        mask = constants.value(node.args[index]).to(node.meta["val"].dtype)
        x = node.args[1 - index]
        masked = torch.isneginf(mask)
        finite = torch.where(masked, torch.zeros((), dtype=mask.dtype), mask)
        with graph.inserting_before(node):
            kept = x
            if finite.any():
                kept = graph.call_function(
                    torch.ops.aten.add.Tensor, (x, _constant(model, node, "mask_values", finite))
                )
                kept.meta = dict(node.meta)
                kept.meta["val"] = node.meta["val"]
            flags = _constant(model, node, "mask", masked)
            where = graph.call_function(torch.ops.aten.where.ScalarSelf, (flags, -math.inf, kept))
        where.meta = dict(node.meta)
        node.replace_all_uses_with(where)
        graph.erase_node(node)
        rewritten += 1
    if rewritten:
        graph.eliminate_dead_code()
        graph.lint()
        model.recompile()
    return rewritten
