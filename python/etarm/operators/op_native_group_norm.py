"""aten.native_group_norm: standardize each (sample, group) over [C/G, spatial], then per-channel weight/bias.

Results: 0 the output, 1 the mean and 2 the rstd ([N, G] each).
Quantized (INT): lowered whole in int32, exact integer statistics and a fixed-point
rsqrt (normalization.py); only the normalized output (result 0) is computed.
"""

from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import (
    affine,
    channel_vector,
    lower_quantized_norm,
    optional_operand_reason,
    quantized_norm_reason,
    quantized_parameter,
    standardize,
)
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register


@register
class NativeGroupNormVisitor(NodeVisitor):
    targets = ("aten.native_group_norm.default",)
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        reason = tm.float_tensor_reason(value) or optional_operand_reason(
            node, [("weight", node.args[1]), ("bias", node.args[2])]
        )
        if reason is None and is_int_spec(spec):
            _, _, _, _, channels, spatial, groups, _ = node.args
            reason = quantized_norm_reason(node, (channels // groups) * spatial, centred=True)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            self.define_quantized(node, graph)
            return
        source, weight, bias, batch, channels, spatial, groups, eps = node.args
        x = graph.value(source)
        grouped = tm.widen(graph, graph.reshape(x, (batch, groups, (channels // groups) * spatial)))
        normalized, centre, rstd = standardize(graph, grouped, [2], eps)
        # Per-channel weight/bias broadcast over [N, C, spatial...].
        normalized = graph.reshape(normalized, x.shape)
        channel_shape = (1, channels) + (1,) * (x.rank - 2)
        normalized = affine(
            graph,
            normalized,
            channel_vector(graph, weight, channel_shape, grouped.dtype),
            channel_vector(graph, bias, channel_shape, grouped.dtype),
        )
        tm.bind_result(graph, node, normalized, index=0)
        used = tm.used_items(node)
        for index, stat in ((1, centre), (2, rstd)):
            if index in used:
                tm.bind_result(graph, node, stat, index=index)

    @staticmethod
    def define_quantized(node, graph):
        _, _, _, batch, channels, spatial, groups, eps = node.args
        shape = graph.value(node.args[0]).shape
        grouped = (batch, groups, (channels // groups) * spatial)
        weight, bias = quantized_parameter(graph, node, 1), quantized_parameter(graph, node, 2)
        channel_shape = (1, channels) + (1,) * (len(shape) - 2)
        lower_quantized_norm(graph, node, grouped, eps, True, weight, bias, shape, channel_shape)
