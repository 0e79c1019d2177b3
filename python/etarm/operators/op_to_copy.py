"""aten._to_copy / its edge form dim_order_ops._to_dim_order_copy: a dtype conversion.

Same TOSA type (including int64 <-> int32, narrowed by the int64 passes): no op.
Otherwise torch's conversion semantics via ``Composer.convert``: float->int truncates
(CAST alone rounds to nearest even), bool<->float go through SELECT / a comparison
(TOSA 1.0 CAST has no bool<->float), int<->int CAST needs the INT profile.
"""

import torch

from etarm.lowering.compose import Composer, conversion_reason
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register
from etarm.op_names import op_name

_CONTIGUOUS_ONLY = "only contiguous memory format"


def _is_contiguous_order(dim_order, rank: int) -> bool:
    return dim_order is None or list(dim_order) == list(range(rank))


@register
class ToCopyVisitor(NodeVisitor):
    targets = ("dim_order_ops._to_dim_order_copy.default", "aten._to_copy.default")
    extension_floats = EXTENSION_FLOATS
    profiles = frozenset({"FP", "INT"})

    def check(self, node, spec):
        source = node.args[0]
        if not isinstance(source, torch.fx.Node):
            return f"{op_name(node.target)}: input is not a tensor"
        rank = len(node.meta["val"].shape)
        if not _is_contiguous_order(node.kwargs.get("dim_order"), rank):
            return f"{op_name(node.target)}: dim_order {node.kwargs['dim_order']} ({_CONTIGUOUS_ONLY})"
        memory_format = node.kwargs.get("memory_format")
        if memory_format not in (None, torch.preserve_format, torch.contiguous_format):
            return f"{op_name(node.target)}: memory_format {memory_format} ({_CONTIGUOUS_ONLY})"
        reason = conversion_reason(source.meta["val"].dtype, node.meta["val"].dtype, spec)
        return f"{op_name(node.target)}: {reason}" if reason else None

    def define(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.convert(node.args[0], c.out_dtype))
