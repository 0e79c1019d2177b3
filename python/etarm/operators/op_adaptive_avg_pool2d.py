"""aten._adaptive_avg_pool2d (adaptive_avg_pool2d): TOSA AVG_POOL2D when its windows are regular,
window sums otherwise.

torch's window i spans [floor(i*in/out), ceil((i+1)*in/out)); when every window has the
same size and they start a fixed stride apart (e.g. in divisible by out, or out = 1),
it is an ordinary average pool. Other sizes (windows of two sizes, overlapping, or an
output larger than the input) sum each window's slice per axis and divide by its size:
float MUL by the reciprocal, or quantized, int32 sums of ``q - zero_point`` and one
RESCALE per position (pooling.py).
"""

import numpy as np
import tosa_serializer as ts

from etarm.lowering import integer_sums, pooling, spatial
from etarm.lowering.quantized import input_qparams, is_quantized
from etarm.lowering.registry import register


def regular_window(size: int, out: int) -> tuple[int, int] | None:
    """(kernel, stride) of adaptive pooling ``size`` -> ``out``, or None if the windows vary."""
    windows = pooling.adaptive_windows(size, out)
    kernels = {end - start for start, end in windows}
    strides = {b[0] - a[0] for a, b in zip(windows, windows[1:])} or {1}
    if len(kernels) != 1 or len(strides) != 1 or 0 in strides:  # stride 0: an output larger than the input
        return None
    return kernels.pop(), strides.pop()


def _sizes(node):
    return spatial.spatial_shape(node.args[0].meta["val"], 2), spatial.spatial_shape(node.meta["val"], 2)


def _window(node):
    in_size, out_size = _sizes(node)
    windows = [regular_window(i, o) for i, o in zip(in_size, out_size)]
    if None in windows:
        return None
    kernel, stride = zip(*windows)
    return pooling.PoolWindow(2, tuple(kernel), tuple(stride), (0, 0), in_size, out_size)


def _divisors(node) -> np.ndarray:
    """Every output position's window size ([out_h, out_w])."""
    per_axis = [[end - start for start, end in pooling.adaptive_windows(i, o)] for i, o in zip(*_sizes(node))]
    return np.outer(*per_axis)


@register
class AdaptiveAvgPool2dVisitor(pooling.PoolVisitor):
    targets = ("aten._adaptive_avg_pool2d.default",)
    spatial_rank = 2
    handles_qparams = True

    def pool_reason(self, node):
        window = _window(node)
        return pooling.avg_pool_reason(node, window, True, None) if window else None

    def quantized_pool_reason(self, node, spec):
        window = _window(node)
        if window is not None:
            return pooling.quantized_avg_pool_reason(node, spec, window)
        largest = int(_divisors(node).max())
        return integer_sums.int16_zero_point_reason(node) or integer_sums.sum_reason(
            node, spec, largest, "an adaptive pooling window"
        )

    def define(self, node, graph):
        window = _window(node)
        if window is not None:
            if is_quantized(node):
                pooling.quantized_avg_pool(graph, node, window, pooling.average_divisors(window))
            else:
                pooling.avg_pool(graph, node, window, graph.out(node))
            return
        nhwc = spatial.to_channels_last(graph, graph.value(node.args[0]), 2)
        out_size = _sizes(node)[1]
        if is_quantized(node):
            zero_point = int(input_qparams(node, 0).zero_point)
            sums = pooling.adaptive_window_sums(graph, integer_sums.centred_int32(graph, nhwc, zero_point), out_size)
            pooling.divide_window_sums(graph, node, sums, _divisors(node))
            return
        sums = pooling.adaptive_window_sums(graph, nhwc, out_size)
        reciprocals = graph.const(1.0 / _divisors(node), sums.dtype, shape=(1, *out_size, 1), stem="reciprocal")
        spatial.write_channels_first(graph, graph.binary(ts.Op.MUL, sums, reciprocals), graph.out(node))
