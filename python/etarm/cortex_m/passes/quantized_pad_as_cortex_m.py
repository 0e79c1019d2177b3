"""QuantizedPadAsCortexM: dequantize -> constant_pad_nd (pads >= 0) -> quantize (int8 per tensor or symmetric int16,
the input's parameters) as cortex_m.pad, the pad value quantized once here. A 4-D pad runs on NHWC data between permutes (nhwc.py)
so that, between cortex_m image ops (a ZeroPad2d before a conv), CancelLayoutPermutes drops them; other ranks are
padded as they are."""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import NotLowered, lower_each, pattern_problem, replace_pattern
from etarm.cortex_m.passes.nhwc import NCHW_TO_NHWC, replace_by_nhwc_op
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import qparams_of

PAD = exir_ops.edge.cortex_m.pad.default


def pads_per_dim(torch_pads, rank: int) -> tuple[list[int], list[int]]:
    """torch's pad list (last dim first, before and after each) as per-dim ``before`` and ``after`` lists."""
    before, after = [0] * rank, [0] * rank
    for i in range(len(torch_pads) // 2):
        before[rank - 1 - i], after[rank - 1 - i] = int(torch_pads[2 * i]), int(torch_pads[2 * i + 1])
    return before, after


class QuantizedPadAsCortexM(ProgramPass):
    """Replaces dequantize -> constant_pad_nd -> quantize (int8 or int16, equal parameters) by cortex_m.pad."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph

        def lower(pad: torch.fx.Node) -> str | None:
            try:
                self._replace(graph, pad)
            except NotLowered as why:
                return str(why)
            return None

        return lower_each(graph, {"aten.constant_pad_nd.default"}, lower)

    @staticmethod
    def _replace(graph: torch.fx.Graph, pad: torch.fx.Node) -> None:
        dequantize, torch_pads = pad.args[:2]
        value = pad.args[2] if len(pad.args) > 2 else pad.kwargs.get("value", 0.0)
        problem = pattern_problem(pad, [dequantize], (torch.int8, torch.int16))
        if problem is not None:
            raise NotLowered(problem)
        if any(int(p) < 0 for p in torch_pads):
            raise NotLowered("a negative pad (a crop) has no cortex_m kernel")
        quantize = next(iter(pad.users))
        x, out = qparams_of(dequantize), qparams_of(quantize)
        if x.zero_point != out.zero_point or not math.isclose(x.scale, out.scale, rel_tol=1e-6):
            raise NotLowered("its output is quantized unlike its input (the kernel moves values, it does not rescale)")
        fill = int(out.quantize(torch.tensor([float(value)]))[0])
        rank = len(dequantize.meta["val"].shape)
        before, after = pads_per_dim(torch_pads, rank)
        if rank != 4:
            replace_pattern(graph, pad, PAD, [dequantize.args[0], before, after, fill])
            return
        nhwc_before, nhwc_after = ([pads[d] for d in NCHW_TO_NHWC] for pads in (before, after))
        replace_by_nhwc_op(graph, quantize, PAD, dequantize.args[0], (nhwc_before, nhwc_after, fill))
        graph.erase_node(pad)
