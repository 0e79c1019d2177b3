"""QuantizedMeanHwAsCortexM: dequantize -> mean over H and W of a 4-D NCHW tensor [-> relu/hardtanh/clamp] ->
quantize (int8 per tensor, any parameters; or symmetric int16, a16w8) as cortex_m.quantized_mean_hw on the NHWC input (after a permute, which
CancelLayoutPermutes drops after an NHWC op), its [N, C] result viewed as [N, C, 1, 1] for keepdim. Global average
pooling and adaptive_avg_pool2d to 1x1 reach the edge program as this mean."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_clamp import LARGEST_SHIFT
from etarm.cortex_m.ops.quantized_mean_hw import MOST_TAPS
from etarm.cortex_m.passes.matching import (
    NotLowered,
    activation_range,
    activation_dtype,
    lower_each,
    quantized_result,
)
from etarm.cortex_m.passes.nhwc import NCHW_TO_NHWC, permute
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

VIEW = exir_ops.edge.aten.view_copy.default


class QuantizedMeanHwAsCortexM(ProgramPass):
    """Replaces dequantize -> mean(dims H, W) [-> activation] -> quantize (int8 or int16) by
    permute -> cortex_m.quantized_mean_hw [-> view_copy to [N, C, 1, 1]]."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph

        def lower(mean: torch.fx.Node) -> str | None:
            try:
                self._replace(graph, mean)
            except NotLowered as why:
                return str(why)
            return None

        return lower_each(graph, {"aten.mean.dim"}, lower)

    @staticmethod
    def _replace(graph: torch.fx.Graph, mean: torch.fx.Node) -> None:
        dq_x, dims = mean.args[:2]
        keepdim = mean.args[2] if len(mean.args) > 2 else mean.kwargs.get("keepdim", False)
        if mean.kwargs.get("dtype") is not None:
            raise NotLowered("a mean with a dtype has no cortex_m kernel")
        shape = dq_x.meta["val"].shape
        if len(shape) != 4 or sorted(int(d) % 4 for d in dims or ()) != [2, 3]:  # None: every dim
            raise NotLowered("only the mean over H and W of a 4-D NCHW tensor has a cortex_m kernel")
        dtype = activation_dtype(qparams_of(dq_x)) if is_dequantize(dq_x) else None
        if dtype is None:
            raise NotLowered(
                "its input is not a dequantized int8 tensor with per-tensor parameters (nor a symmetric int16 one)"
            )
        taps = int(shape[2]) * int(shape[3])
        if taps > MOST_TAPS[dtype]:
            raise NotLowered(f"{taps} taps: the kernel sums at most {MOST_TAPS[dtype]} {dtype} values in int32")
        activation, quantize = quantized_result(mean, dtype)
        x, out = qparams_of(dq_x), qparams_of(quantize)
        try:
            multiplier, shift = multiplier_and_shift(x.scale / (taps * out.scale), LARGEST_SHIFT)
        except EtarmError as error:
            raise NotLowered(str(error)) from error
        act_min, act_max = activation_range(activation, out)
        args = (int(x.zero_point), multiplier, shift, int(out.zero_point), act_min, act_max)
        with graph.inserting_before(quantize):
            nhwc = permute(graph, dq_x.args[0], NCHW_TO_NHWC)
            node = graph.call_function(exir_ops.edge.cortex_m.quantized_mean_hw.default, (nhwc, *args))
            result = node
            if keepdim:
                result = graph.call_function(VIEW, (node, [int(shape[0]), int(shape[1]), 1, 1]))
        value = quantize.meta["val"]
        with value.fake_mode:
            node.meta["val"] = value.reshape(int(shape[0]), int(shape[1])).contiguous()
        result.meta = {**quantize.meta, **result.meta}
        quantize.replace_all_uses_with(result)
        graph.erase_node(quantize)
        for done in (activation, mean):
            if done is not None and not done.users:
                graph.erase_node(done)
