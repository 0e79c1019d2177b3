"""What the pooling rewrites share (QuantizedMaxPool2dAsCmsisNn, QuantizedAvgPool2dAsCmsisNn): a 2-D pool of a
dequantized int8 (or symmetric int16: a16w8) tensor whose result is quantized with the input's own parameters (CMSIS-NN's pools do not
rescale), directly or through a fused relu / relu6 / hardtanh / clamp, becomes one NHWC cortex_m op between a permute
to NHWC and one back (nhwc.py)."""

from __future__ import annotations

import math

import torch
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import NotLowered, activation_dtype, activation_range, lower_each, quantized_result
from etarm.cortex_m.passes.nhwc import replace_by_nhwc_op
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize, qparams_of


def pair(value) -> list[int]:
    """An int or a one- or two-element list as [h, w]."""
    values = [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]
    return values * 2 if len(values) == 1 else values


def pool_arguments(pool: torch.fx.Node, defaults: tuple) -> tuple:
    """The pool's arguments after (input, kernel_size), torch's defaults filled in."""
    if len(pool.args) > 2 + len(defaults) or pool.kwargs:
        raise NotLowered("unexpected pooling arguments")
    return (*pool.args[2:], *defaults[len(pool.args) - 2 :])


class QuantizedPool2dAsCmsisNn(ProgramPass):
    """A 2-D pool as a cortex_m op (a subclass per kind)."""

    pool_op = ""  # the aten op's name
    target = None  # the exir op the subclass emits

    def result_of(self, pool: torch.fx.Node) -> tuple[torch.fx.Node, list[int], list[int]]:
        """(the node holding the pooled tensor, stride, padding); raises NotLowered for what the kernel lacks."""
        raise NotImplementedError

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph

        def lower(pool: torch.fx.Node) -> str | None:
            try:
                self._replace(graph, pool)
            except NotLowered as why:
                return str(why)
            return None

        return lower_each(graph, {self.pool_op}, lower)

    def _replace(self, graph: torch.fx.Graph, pool: torch.fx.Node) -> None:
        dq_x, kernel_size = pool.args[:2]
        result, stride, padding = self.result_of(pool)
        kernel_size = pair(kernel_size)
        if len(dq_x.meta["val"].shape) != 4:
            raise NotLowered("only 2-D pooling of 4-D NCHW inputs has a cortex_m kernel")
        dtype = activation_dtype(qparams_of(dq_x)) if is_dequantize(dq_x) else None
        if dtype is None:
            raise NotLowered(
                "its input is not a dequantized int8 tensor with per-tensor parameters (nor a symmetric int16 one)"
            )
        activation, quantize = quantized_result(result, dtype)
        x, out = qparams_of(dq_x), qparams_of(quantize)
        if x.zero_point != out.zero_point or not math.isclose(x.scale, out.scale, rel_tol=1e-6):
            raise NotLowered("its output is quantized unlike its input (the kernel does not rescale)")
        act_min, act_max = activation_range(activation, out)
        args = (kernel_size, stride, padding, act_min, act_max)
        replace_by_nhwc_op(graph, quantize, self.target, dq_x.args[0], args)
        # An average pool is its own result: each node is erased once.
        for done in dict.fromkeys((activation, result, pool)):
            if done is not None and not done.users:
                graph.erase_node(done)
