"""Base visitor for tril / triu: SELECT(constant mask, x, 0) over the last two dimensions."""

from __future__ import annotations

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ALL_KINDS, PRO_INT, SMALL_INT, dtype_reason
from etarm.lowering.registry import NodeVisitor
from etarm.op_names import op_name


class TriangleVisitor(NodeVisitor):
    profiles = frozenset({"FP", "INT"})
    keep = None  # torch.tril or torch.triu: which part of the mask is kept

    def check(self, node, spec):
        if len(node.args[0].meta["val"].shape) < 2:
            return f"{op_name(node.target)}: the input needs at least 2 dimensions"
        return dtype_reason(op_name(node.target), node.meta["val"].dtype, spec, {**ALL_KINDS, SMALL_INT: PRO_INT})

    def define(self, node, graph):
        c = Composer(graph, node)
        x = c.tensor(node.args[0])
        diagonal = node.args[1] if len(node.args) > 1 else node.kwargs.get("diagonal", 0)
        rows, cols = x.shape[-2:]
        mask = type(self).keep(torch.ones(rows, cols, dtype=torch.bool), diagonal)
        mask = graph.const(mask.numpy(), ts.DType.BOOL, shape=(1,) * (x.rank - 2) + (rows, cols), stem="mask")
        if x.dtype == ts.DType.BOOL:
            return c.finish(c.logical_and(mask, x))
        c.finish(c.select(mask, x, 0))
