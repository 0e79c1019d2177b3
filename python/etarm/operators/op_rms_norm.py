"""aten.rms_norm, kept whole: x * RSQRT(mean(x^2) + eps) * weight over the normalized dims.

Whole, it is one flattened reduction and needs no pow/rsqrt lowerings of its own.
Quantized (INT): lowered whole in int32, an exact integer sum of squares and a
fixed-point rsqrt (normalization.py).
"""

import math

import torch

from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import (
    affine,
    channel_vector,
    lower_quantized_norm,
    optional_operand_reason,
    quantized_norm_reason,
    quantized_parameter,
    rms_scale,
    trailing_flattened,
)
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register


def _eps(node):
    eps = tm.argument(node, 3, "eps")
    if eps is not None:
        return eps
    dtype = node.args[0].meta["val"].dtype
    # A quantized input is integer by now; the quantized model computed in float32.
    return torch.finfo(dtype if dtype.is_floating_point else torch.float32).eps


@register
class RmsNormVisitor(NodeVisitor):
    targets = ("aten.rms_norm.default",)
    profiles = frozenset({"FP", "INT"})
    preserved_ops = (torch.ops.aten.rms_norm.default,)
    handles_qparams = True

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        reason = tm.float_tensor_reason(value) or optional_operand_reason(node, [("weight", tm.argument(node, 2, "weight"))])
        if reason is None and is_int_spec(spec):
            reason = quantized_norm_reason(node, math.prod(node.args[1]), centred=False)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            self.define_quantized(node, graph)
            return
        source, normalized_shape = node.args[:2]
        weight = tm.argument(node, 2, "weight")
        eps = _eps(node)
        x = graph.value(source)
        flat = trailing_flattened(x.shape, len(normalized_shape))
        work = tm.widen(graph, graph.reshape(x, flat))
        # Like torch: normalize in float32, return to the input dtype, then apply the weight.
        result = tm.narrow(graph, rms_scale(graph, work, [len(flat) - 1], eps), x.dtype)
        result = affine(graph, result, channel_vector(graph, weight, flat[-1:], x.dtype), None)
        tm.bind_result(graph, node, result)

    @staticmethod
    def define_quantized(node, graph):
        flat = trailing_flattened(graph.value(node.args[0]).shape, len(node.args[1]))
        weight = quantized_parameter(graph, node, 2) if tm.argument(node, 2, "weight") is not None else None
        lower_quantized_norm(graph, node, flat, _eps(node), False, weight, None, flat, flat[-1:])
