"""aten.native_layer_norm: standardize over the normalized (trailing) dims, then weight/bias.

The normalized dims are flattened to one axis first, so each statistic is ONE reduction.
Results: 0 the output, 1 the mean and 2 the rstd (both with the normalized dims kept as 1).
"""

from etarm.operators import tensor_math as tm
from etarm.operators.normalization import affine, channel_vector, optional_operand_reason, standardize, trailing_flattened
from etarm.operators.registry import NodeVisitor, register


@register
class NativeLayerNormVisitor(NodeVisitor):
    targets = ("aten.native_layer_norm.default",)
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        return tm.float_tensor_reason(value) or optional_operand_reason(node, [("weight", node.args[2]), ("bias", node.args[3])])

    def define(self, node, graph):
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
