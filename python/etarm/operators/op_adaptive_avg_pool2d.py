"""aten._adaptive_avg_pool2d (adaptive_avg_pool2d): TOSA AVG_POOL2D when its windows are regular.

torch's window i spans [floor(i*in/out), ceil((i+1)*in/out)); when every window has the
same size and they start a fixed stride apart (e.g. in divisible by out, or out = 1),
it is an ordinary average pool. Other sizes stay on CPU. Quantized, it is the integer
average pool of pooling.py (window sums, one RESCALE).
"""

from etarm.lowering import pooling, spatial
from etarm.lowering.quantized import is_quantized
from etarm.lowering.registry import register


def regular_window(size: int, out: int) -> tuple[int, int] | None:
    """(kernel, stride) of adaptive pooling ``size`` -> ``out``, or None if the windows vary."""
    starts = [i * size // out for i in range(out)]
    ends = [-(-(i + 1) * size // out) for i in range(out)]
    kernels = {e - s for s, e in zip(starts, ends)}
    strides = {b - a for a, b in zip(starts, starts[1:])} or {1}
    if len(kernels) != 1 or len(strides) != 1:
        return None
    return kernels.pop(), strides.pop()


def _window(node):
    in_size = spatial.spatial_shape(node.args[0].meta["val"], 2)
    out_size = spatial.spatial_shape(node.meta["val"], 2)
    windows = [regular_window(i, o) for i, o in zip(in_size, out_size)]
    if None in windows:
        return None
    kernel, stride = zip(*windows)
    return pooling.PoolWindow(2, tuple(kernel), tuple(stride), (0, 0), in_size, out_size)


@register
class AdaptiveAvgPool2dVisitor(pooling.PoolVisitor):
    targets = ("aten._adaptive_avg_pool2d.default",)
    spatial_rank = 2
    handles_qparams = True

    @staticmethod
    def _irregular_reason(node):
        in_size = spatial.spatial_shape(node.args[0].meta["val"], 2)
        out_size = spatial.spatial_shape(node.meta["val"], 2)
        return f"output_size {list(out_size)} does not divide input size {list(in_size)} into equal windows"

    def pool_reason(self, node):
        window = _window(node)
        if window is None:
            return self._irregular_reason(node)
        return pooling.avg_pool_reason(node, window, True, None)

    def quantized_pool_reason(self, node, spec):
        window = _window(node)
        if window is None:
            return self._irregular_reason(node)
        return pooling.quantized_avg_pool_reason(node, spec, window)

    def define(self, node, graph):
        window = _window(node)
        if is_quantized(node):
            pooling.quantized_avg_pool(graph, node, window, pooling.average_divisors(window))
            return
        pooling.avg_pool(graph, node, window, graph.out(node))
