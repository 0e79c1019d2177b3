"""LiftScalarOperands: turns Python-number operands of arithmetic and of where into constant tensors before annotation.

masked_fill becomes the where it is (``where(mask, value, x)``) first, so its fill value is
quantized with x's parameters like any where branch.

``x * 0.5`` reaches the quantizer as ``mul.Tensor(x, 0.5)``: the number is no graph
node, so it could not be quantized and the integer lowering would meet a float
constant. As a buffer read by ``get_attr`` it is annotated like any operand and
convert_pt2e folds it into an integer constant.
"""

from __future__ import annotations

import numbers
from typing import Callable

import torch

from etarm.op_names import op_name
from etarm.passes.base import AnnotationPass
from etarm.quantization.annotate_elementwise import LIFTABLE, SCALAR_OVERLOADS
from etarm.quantization.annotation import is_float_tensor

# Ops whose number operands are lifted: (the operand positions, the overload that takes
# tensors there, or None to keep the target).
_WHERE_OVERLOADS = {
    "aten.where.ScalarOther": ((2,), torch.ops.aten.where.self),
    "aten.where.ScalarSelf": ((1,), torch.ops.aten.where.self),
    "aten.where.Scalar": ((1, 2), torch.ops.aten.where.self),
}
_LIFTED = {
    **{name: ((0, 1), SCALAR_OVERLOADS.get(name)) for name in LIFTABLE},
    **_WHERE_OVERLOADS,
}
_MASKED_FILLS = ("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")


def _masked_fills_as_where(graph: torch.fx.Graph, wants: Callable[[torch.fx.Node], bool]) -> None:
    for node in graph.nodes:
        if node.op == "call_function" and op_name(node.target) in _MASKED_FILLS and is_float_tensor(node) and wants(node):
            x, mask, value = node.args[:3]
            node.target = torch.ops.aten.where.ScalarSelf if isinstance(value, numbers.Number) else torch.ops.aten.where.self
            node.args = (mask, value, x)


class LiftScalarOperands(AnnotationPass):
    """Turns number operands of arithmetic and where (masked_fill first) into quantizable constants."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return lift_scalar_operands(model, lambda node: quantizer.config_for(node) is not None)


def lift_scalar_operands(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces number operands of the arithmetic and where nodes ``wants`` accepts (masked_fill
    first made a where); returns how many."""
    graph = model.graph
    _masked_fills_as_where(graph, wants)
    lifted = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or op_name(node.target) not in _LIFTED or not is_float_tensor(node):
            continue
        if not wants(node):
            continue
        positions, replacement = _LIFTED[op_name(node.target)]
        args = list(node.args)
        for index in positions:
            value = args[index] if index < len(args) else None
            if not isinstance(value, numbers.Number) or isinstance(value, bool):
                continue
            args[index] = _constant(model, node, float(value))
            lifted += 1
        if tuple(args) != tuple(node.args):
            node.args = tuple(args)
            if replacement is not None:
                node.target = replacement
    if lifted:
        graph.lint()
        model.recompile()
    return lifted


def _constant(model: torch.fx.GraphModule, user: torch.fx.Node, value: float) -> torch.fx.Node:
    name = f"_etarm_scalar_{len([n for n in model.graph.nodes if n.op == 'get_attr'])}"
    while hasattr(model, name):
        name += "_"
    tensor = torch.tensor(value, dtype=user.meta["val"].dtype)
    model.register_buffer(name, tensor)
    with model.graph.inserting_before(user):
        node = model.graph.get_attr(name)
    fake_mode = getattr(user.meta["val"], "fake_mode", None)
    node.meta["val"] = fake_mode.from_tensor(tensor) if fake_mode is not None else tensor
    return node
