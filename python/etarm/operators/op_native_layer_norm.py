"""aten.native_layer_norm: standardize over the normalized (trailing) dims, then weight/bias.

The normalized dims are flattened to one axis first, so each statistic is ONE reduction.
Results: 0 the output, 1 the mean and 2 the rstd (both with the normalized dims kept as 1).
Quantized (INT): lowered whole in int32 (normalization.NormVisitor).
"""

import math

from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import (
    NormVisitor,
    affine,
    bind_standardized,
    lower_quantized_norm,
    standardize,
    trailing_flattened,
)
from etarm.lowering.registry import register


@register
class NativeLayerNormVisitor(NormVisitor):
    targets = ("aten.native_layer_norm.default",)
    affine_indices = (2, 3)

    def normalized_count(self, node):
        return math.prod(node.args[1])

    def define_float(self, node, graph):
        source, normalized_shape, weight, bias, eps = node.args
        x = graph.value(source)
        flat = trailing_flattened(x.shape, len(normalized_shape))
        work = tm.widen(graph, graph.reshape(x, flat))
        normalized, centre, rstd = standardize(graph, work, [len(flat) - 1], eps)
        bind_standardized(graph, node, affine(graph, normalized, weight, bias, flat[-1:]), centre, rstd)

    def define_quantized(self, node, graph):
        normalized_shape, eps = node.args[1], node.args[4]
        flat = trailing_flattened(graph.value(node.args[0]).shape, len(normalized_shape))
        weight, bias = self.quantized_affine(graph, node)
        lower_quantized_norm(graph, node, flat, eps, self.centred, weight, bias, flat, flat[-1:])
