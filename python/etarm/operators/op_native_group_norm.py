"""aten.native_group_norm: standardize each (sample, group) over [C/G, spatial], then per-channel weight/bias.

Results: 0 the output, 1 the mean and 2 the rstd ([N, G] each).
Quantized (INT): lowered whole in int32 (normalization.NormVisitor).
"""

from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import NormVisitor, affine, bind_standardized, lower_quantized_norm, standardize
from etarm.lowering.registry import register


@register
class NativeGroupNormVisitor(NormVisitor):
    targets = ("aten.native_group_norm.default",)
    affine_indices = (1, 2)

    def normalized_count(self, node):
        _, _, _, _, channels, spatial, groups, _ = node.args
        return (channels // groups) * spatial

    def define_float(self, node, graph):
        source, weight, bias, batch, channels, spatial, groups, eps = node.args
        x = graph.value(source)
        grouped = tm.widen(graph, graph.reshape(x, (batch, groups, (channels // groups) * spatial)))
        normalized, centre, rstd = standardize(graph, grouped, [2], eps)
        # Per-channel weight/bias broadcast over [N, C, spatial...].
        normalized = graph.reshape(normalized, x.shape)
        channel_shape = (1, channels) + (1,) * (x.rank - 2)
        bind_standardized(graph, node, affine(graph, normalized, weight, bias, channel_shape), centre, rstd)

    def define_quantized(self, node, graph):
        _, _, _, batch, channels, spatial, groups, eps = node.args
        shape = graph.value(node.args[0]).shape
        grouped = (batch, groups, (channels // groups) * spatial)
        channel_shape = (1, channels) + (1,) * (len(shape) - 2)
        weight, bias = self.quantized_affine(graph, node)
        lower_quantized_norm(graph, node, grouped, eps, self.centred, weight, bias, shape, channel_shape)
