"""aten.rms_norm, kept whole: x * RSQRT(mean(x^2) + eps) * weight over the normalized dims.

Whole, it is one flattened reduction and needs no pow/rsqrt lowerings of its own.
Quantized (INT): lowered whole in int32, an exact integer sum of squares and a
fixed-point rsqrt (normalization.py).
"""

import math

import torch

from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import NormVisitor, affine, lower_quantized_norm, rms_scale, trailing_flattened
from etarm.lowering.registry import register


def _eps(node):
    eps = tm.argument(node, 3, "eps")
    if eps is not None:
        return eps
    dtype = node.args[0].meta["val"].dtype
    # A quantized input is integer by now; the quantized model computed in float32.
    return torch.finfo(dtype if dtype.is_floating_point else torch.float32).eps


@register
class RmsNormVisitor(NormVisitor):
    targets = ("aten.rms_norm.default",)
    preserved_ops = (torch.ops.aten.rms_norm.default,)
    centred = False
    affine_indices = (2, None)

    def normalized_count(self, node):
        return math.prod(node.args[1])

    def define_float(self, node, graph):
        source, normalized_shape = node.args[:2]
        weight = tm.argument(node, 2, "weight")
        eps = _eps(node)
        x = graph.value(source)
        flat = trailing_flattened(x.shape, len(normalized_shape))
        work = tm.widen(graph, graph.reshape(x, flat))
        # Like torch: normalize in float32, return to the input dtype, then apply the weight.
        result = tm.narrow(graph, rms_scale(graph, work, [len(flat) - 1], eps), x.dtype)
        tm.bind_result(graph, node, affine(graph, result, weight, None, flat[-1:]))

    def define_quantized(self, node, graph):
        flat = trailing_flattened(graph.value(node.args[0]).shape, len(node.args[1]))
        weight, _ = self.quantized_affine(graph, node)
        lower_quantized_norm(graph, node, flat, _eps(node), self.centred, weight, None, flat, flat[-1:])
