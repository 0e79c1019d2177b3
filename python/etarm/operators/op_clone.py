"""aten.clone / its edge form dim_order_ops._clone_dim_order: the input tensor itself
(TOSA values are immutable, so no copy is needed)."""

import torch

from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.dtype_rules import dtype_kind
from etarm.lowering.registry import NodeVisitor, register
from etarm.op_names import op_name


@register
class CloneVisitor(NodeVisitor):
    targets = ("dim_order_ops._clone_dim_order.default", "aten.clone.default")
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        dtype = node.meta["val"].dtype
        if dtype_kind(dtype) is None:
            return f"{op_name(node.target)}: data type {dtype} is not supported"
        rank = len(node.meta["val"].shape)
        dim_order = node.kwargs.get("dim_order")
        if dim_order is not None and list(dim_order) != list(range(rank)):
            return f"{op_name(node.target)}: dim_order {dim_order} (only contiguous memory format)"
        memory_format = node.kwargs.get("memory_format")
        if memory_format not in (None, torch.preserve_format, torch.contiguous_format):
            return f"{op_name(node.target)}: memory_format {memory_format} (only contiguous memory format)"
        return None

    def define(self, node, graph):
        graph.bind(node, graph.value(node.args[0]))
