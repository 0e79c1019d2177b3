"""aten.native_group_norm: standardize each (sample, group) over [C/G, spatial], then per-channel weight/bias.

Results: 0 the output, 1 the mean and 2 the rstd ([N, G] each).
"""

from etarm.operators import tensor_math as tm
from etarm.operators.normalization import affine, channel_vector, optional_operand_reason, standardize
from etarm.operators.registry import NodeVisitor, register


@register
class NativeGroupNormVisitor(NodeVisitor):
    targets = ("aten.native_group_norm.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        return tm.float_tensor_reason(value) or optional_operand_reason(node, [("weight", node.args[1]), ("bias", node.args[2])])

    def define(self, node, graph):
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
