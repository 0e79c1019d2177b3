"""QuantizedMaxPool2dAsCmsisNn: a quantized max_pool2d as cortex_m.quantized_max_pool2d on NHWC data.

In the edge program ``max_pool2d`` is ``max_pool2d_with_indices(dq(x), ...)[0]``. When the indices are unused and
the maximum is quantized to int8 with the input's own parameters (the quantizer shares them), directly or through a
fused relu / relu6 / hardtanh / clamp, the whole becomes one cortex_m op between a permute to NHWC and one back
(nhwc.py; CancelLayoutPermutes drops them between NHWC ops).
"""

from __future__ import annotations

import math
import operator

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import NotLowered, activation_range, int8_per_tensor, lower_each, quantized_result
from etarm.cortex_m.passes.nhwc import replace_by_nhwc_op
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of

_MAX_POOL = "aten.max_pool2d_with_indices.default"


def _pair(value) -> list[int]:
    """An int or a one- or two-element list as [h, w]."""
    values = [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]
    return values * 2 if len(values) == 1 else values


class QuantizedMaxPool2dAsCmsisNn(ProgramPass):
    """Replaces dequantize -> max_pool2d_with_indices [0] [-> relu/hardtanh/clamp] -> quantize (int8, the input's
    parameters) by permute -> cortex_m.quantized_max_pool2d (arm_max_pool_s8) -> permute."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph

        def lower(pool: torch.fx.Node) -> str | None:
            try:
                self._replace(graph, pool)
            except NotLowered as why:
                return str(why)
            return None

        return lower_each(graph, {_MAX_POOL}, lower)

    @staticmethod
    def _replace(graph: torch.fx.Graph, pool: torch.fx.Node) -> None:
        if len(pool.args) > 6 or pool.kwargs:
            raise NotLowered("unexpected max_pool2d arguments")
        defaults = ([], 0, 1, False)  # stride, padding, dilation, ceil_mode
        dq_x, kernel_size, stride, padding, dilation, ceil_mode = (*pool.args, *defaults[len(pool.args) - 2 :])
        kernel_size, padding, dilation = _pair(kernel_size), _pair(padding), _pair(dilation)
        stride = _pair(stride) if stride else kernel_size  # torch's default stride: the kernel size
        if dilation != [1, 1] or ceil_mode:
            raise NotLowered("a dilated or ceil-mode max pool has no cortex_m kernel")
        if len(dq_x.meta["val"].shape) != 4:
            raise NotLowered("only 2-D pooling of 4-D NCHW inputs has a cortex_m kernel")
        if not is_dequantize(dq_x) or not int8_per_tensor(qparams_of(dq_x)):
            raise NotLowered("its input is not a dequantized int8 tensor with per-tensor parameters")
        users = list(pool.users)
        if len(users) != 1 or users[0].target is not operator.getitem or users[0].args[1] != 0:
            raise NotLowered("its indices are used")
        maximum = users[0]
        activation, quantize = quantized_result(maximum)
        x, out = qparams_of(dq_x), qparams_of(quantize)
        if x.zero_point != out.zero_point or not math.isclose(x.scale, out.scale, rel_tol=1e-6):
            raise NotLowered("its output is quantized unlike its input (the kernel does not rescale)")
        act_min, act_max = activation_range(activation, out)
        target = exir_ops.edge.cortex_m.quantized_max_pool2d.default
        replace_by_nhwc_op(graph, quantize, target, dq_x.args[0], (kernel_size, stride, padding, act_min, act_max))
        for done in (activation, maximum, pool):
            if done is not None and not done.users:
                graph.erase_node(done)
