"""NodeBuilder: adds call_function nodes to an fx graph in place of one node, for passes that
write an op as its arithmetic (before annotation); ``replace_float_nodes`` runs such a table."""

from __future__ import annotations

from typing import Callable

import torch

from etarm.op_names import op_name

# op name -> (builds the replacement of a node, whether it applies to that node)
Replacements = dict[
    str, tuple[Callable[["NodeBuilder", torch.fx.Node], torch.fx.Node], Callable[[torch.fx.Node], bool]]
]


class NodeBuilder:
    """Adds call_function nodes before ``anchor``, with its metadata and their own values."""

    def __init__(self, graph: torch.fx.Graph, anchor: torch.fx.Node):
        self.graph, self.anchor = graph, anchor

    def __call__(self, target, *args) -> torch.fx.Node:
        with self.graph.inserting_before(self.anchor):
            node = self.graph.call_function(target, args)
        node.meta = {key: value for key, value in self.anchor.meta.items() if key != "val"}
        node.meta["val"] = target(*torch.fx.node.map_arg(args, lambda a: a.meta["val"]))  # lists too (stack, cat)
        return node


def replace_float_nodes(
    model: torch.fx.GraphModule, replacements: Replacements, wants: Callable[[torch.fx.Node], bool]
) -> int:
    """Replaces each float-valued node of an op in ``replacements`` that applies and that ``wants``
    accepts by what its builder writes; returns how many."""
    replaced = 0
    for node in list(model.graph.nodes):
        entry = replacements.get(op_name(node.target)) if node.op == "call_function" else None
        value = node.meta.get("val")
        if entry is None or not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            continue
        build, applies = entry
        if not applies(node) or not wants(node):
            continue
        node.replace_all_uses_with(build(NodeBuilder(model.graph, node), node))
        model.graph.erase_node(node)
        replaced += 1
    return finish(model, replaced)


def finish(model: torch.fx.GraphModule, replaced: int) -> int:
    """Checks and recompiles ``model`` if a pass replaced something; returns the count."""
    if replaced:
        model.graph.lint()
        model.recompile()
    return replaced
