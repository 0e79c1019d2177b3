"""The compiler owns layout: CMSIS-NN's image kernels take NHWC, torch's graphs are NCHW. A rewrite puts its
``cortex_m::`` op between a permute_copy to NHWC and one back to NCHW, so the graph around it keeps torch's layout;
CancelLayoutPermutes then drops each NHWC -> NCHW -> NHWC round trip between two such ops."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from etarm.cortex_m.passes.matching import REASON

NCHW_TO_NHWC = [0, 2, 3, 1]
NHWC_TO_NCHW = [0, 3, 1, 2]
PERMUTE = exir_ops.edge.aten.permute_copy.default
LAYOUT_REASON = "layout change between torch's NCHW and the NHWC of the cortex_m kernels beside it"


def permute(graph: torch.fx.Graph, value: torch.fx.Node, dims: list[int]) -> torch.fx.Node:
    """``permute_copy(value, dims)`` at the graph's insertion point, with its (contiguous) fake value."""
    node = graph.call_function(PERMUTE, (value, dims))
    val = value.meta["val"]
    with val.fake_mode:
        node.meta["val"] = val.permute(dims).contiguous()
    node.meta[REASON] = LAYOUT_REASON
    return node


def replace_by_nhwc_op(graph: torch.fx.Graph, quantize: torch.fx.Node, target, nchw_input: torch.fx.Node, args):
    """Replaces ``quantize`` (the NCHW int8 result of a matched pattern) by ``target(nhwc(nchw_input), *args)``
    permuted back to NCHW. Returns the new op's node."""
    with graph.inserting_before(quantize):
        nhwc_input = permute(graph, nchw_input, NCHW_TO_NHWC)
        node = graph.call_function(target, (nhwc_input, *args))
        result = quantize.meta["val"]
        with result.fake_mode:
            node.meta["val"] = result.permute(NCHW_TO_NHWC).contiguous()
        nchw = permute(graph, node, NHWC_TO_NCHW)
    nchw.meta = {**quantize.meta, REASON: LAYOUT_REASON}
    quantize.replace_all_uses_with(nchw)
    graph.erase_node(quantize)
    return node
