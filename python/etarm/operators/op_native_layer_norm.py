"""aten.native_layer_norm: standardize over the normalized (trailing) dims, then weight/bias.

The normalized dims are flattened to one axis first, so each statistic is ONE reduction.
Results: 0 the output, 1 the mean and 2 the rstd (both with the normalized dims kept as 1).
Quantized (INT): lowered whole in int32, exact integer statistics and a fixed-point
rsqrt (normalization.py); only the normalized output (result 0) is computed.
"""

import math

from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import (
    affine,
    channel_vector,
    lower_quantized_norm,
    optional_operand_reason,
    quantized_norm_reason,
    quantized_parameter,
    standardize,
    trailing_flattened,
)
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register


@register
class NativeLayerNormVisitor(NodeVisitor):
    targets = ("aten.native_layer_norm.default",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        reason = tm.float_tensor_reason(value) or optional_operand_reason(
            node, [("weight", node.args[2]), ("bias", node.args[3])]
        )
        if reason is None and is_int_spec(spec):
            reason = quantized_norm_reason(node, math.prod(node.args[1]), centred=True)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            self.define_quantized(node, graph)
            return
        source, normalized_shape, weight, bias, eps = node.args
        x = graph.value(source)
        flat = trailing_flattened(x.shape, len(normalized_shape))
        work = tm.widen(graph, graph.reshape(x, flat))
        normalized, centre, rstd = standardize(graph, work, [len(flat) - 1], eps)
        (size,) = flat[-1:]
        normalized = affine(
            graph,
            normalized,
            channel_vector(graph, weight, (size,), work.dtype),
            channel_vector(graph, bias, (size,), work.dtype),
        )
        tm.bind_result(graph, node, normalized, index=0)
        used = tm.used_items(node)
        for index, stat in ((1, centre), (2, rstd)):
            if index in used:
                tm.bind_result(graph, node, stat, index=index)

    @staticmethod
    def define_quantized(node, graph):
        normalized_shape, eps = node.args[1], node.args[4]
        flat = trailing_flattened(graph.value(node.args[0]).shape, len(normalized_shape))
        weight, bias = quantized_parameter(graph, node, 2), quantized_parameter(graph, node, 3)
        lower_quantized_norm(graph, node, flat, eps, True, weight, bias, flat, flat[-1:])
