"""FoldConstantWeights: ops computed from parameters alone become constants before annotation.

nn.MultiheadAttention slices its query, key and value weights out of one parameter
(``in_proj_weight``) inside forward. A weight computed by a graph node is no constant to
convert_pt2e: its per-channel quantize stays in the program as an op (on the CPU), and the
linear it feeds cannot be lowered whole. Evaluated once here, such a weight is a constant
again, quantized and folded like any parameter.
"""

from __future__ import annotations

import operator

import torch

from etarm.passes.base import AnnotationPass

# Ops whose result depends on their arguments only: safe to evaluate ahead of time.
_NONDETERMINISTIC = ("rand", "dropout", "bernoulli", "normal", "uniform", "multinomial", "empty")


def deterministic(node: torch.fx.Node) -> bool:
    """Whether a call's result depends on its arguments only (no random or uninitialised data)."""
    return not any(word in str(node.target) for word in _NONDETERMINISTIC)


def _foldable(node: torch.fx.Node, values: dict) -> bool:
    if node.op != "call_function" or not node.all_input_nodes or not node.users:
        return False
    return deterministic(node) and all(arg in values for arg in node.all_input_nodes)


def evaluate(node: torch.fx.Node, values: dict):
    """A call's result, its input nodes read from ``values``."""
    args = torch.fx.node.map_arg(node.args, values.__getitem__)
    kwargs = torch.fx.node.map_arg(node.kwargs, values.__getitem__)
    with torch.no_grad():
        return node.target(*args, **kwargs)


class FoldConstantWeights(AnnotationPass):
    """Evaluates ops of parameters alone (a weight sliced out of a parameter) into constants."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return fold_constant_weights(model)


def fold_constant_weights(model: torch.fx.GraphModule) -> int:
    """Replaces each tensor-valued node computed from get_attr nodes alone by a constant; returns how many."""
    graph = model.graph
    values = {node: operator.attrgetter(node.target)(model) for node in graph.nodes if node.op == "get_attr"}
    folded = 0
    for node in list(graph.nodes):
        if not _foldable(node, values):
            continue
        value = evaluate(node, values)
        if not isinstance(value, torch.Tensor):
            values[node] = value  # a tuple (split, chunk): its getitem users fold
            continue
        name = f"_etarm_folded_{node.name}"
        while hasattr(model, name):
            name += "_"
        model.register_buffer(name, value.detach().clone())
        with graph.inserting_before(node):
            constant = graph.get_attr(name)
        constant.meta = dict(node.meta)
        node.replace_all_uses_with(constant)
        values[constant] = value
        folded += 1
    if folded:
        graph.eliminate_dead_code()
        graph.lint()
        model.recompile()
    return folded
