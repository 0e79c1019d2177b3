"""NodeBuilder: adds call_function nodes to an fx graph in place of one node, for passes that
write an op as its arithmetic (before annotation)."""

from __future__ import annotations

import torch


class NodeBuilder:
    """Adds call_function nodes before ``anchor``, with its metadata and their own values."""

    def __init__(self, graph: torch.fx.Graph, anchor: torch.fx.Node):
        self.graph, self.anchor = graph, anchor

    def __call__(self, target, *args) -> torch.fx.Node:
        with self.graph.inserting_before(self.anchor):
            node = self.graph.call_function(target, args)
        node.meta = {key: value for key, value in self.anchor.meta.items() if key != "val"}
        values = [a.meta["val"] if isinstance(a, torch.fx.Node) else a for a in args]
        node.meta["val"] = target(*values)
        return node
