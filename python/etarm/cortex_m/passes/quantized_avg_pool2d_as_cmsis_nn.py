"""QuantizedAvgPool2dAsCmsisNn: a quantized avg_pool2d as cortex_m.quantized_avg_pool2d on NHWC data.

CMSIS-NN averages the window's taps inside the input (torch's count_include_pad=False; the same as torch's default
when there is no padding) and does not rescale: CortexMQuantizer shares the input's parameters with an average pool
(an average stays within its inputs' range). quantized_pool.py says what else is matched.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from etarm.cortex_m.passes.matching import NotLowered
from etarm.cortex_m.passes.quantized_pool import QuantizedPool2dAsCmsisNn, pair, pool_arguments


class QuantizedAvgPool2dAsCmsisNn(QuantizedPool2dAsCmsisNn):
    """Replaces dequantize -> avg_pool2d [-> relu/hardtanh/clamp] -> quantize (int8, the input's parameters) by
    permute -> cortex_m.quantized_avg_pool2d (arm_avgpool_s8) -> permute."""

    pool_op = "aten.avg_pool2d.default"
    target = exir_ops.edge.cortex_m.quantized_avg_pool2d.default

    def result_of(self, pool: torch.fx.Node) -> tuple[torch.fx.Node, list[int], list[int]]:
        stride, padding, ceil_mode, count_include_pad, divisor = pool_arguments(pool, ([], 0, False, True, None))
        if ceil_mode or divisor is not None:
            raise NotLowered("a ceil-mode average pool or one with a divisor override has no cortex_m kernel")
        if count_include_pad and pair(padding) != [0, 0]:
            raise NotLowered("a padded average pool counting its padding (CMSIS-NN averages the input's taps only)")
        return pool, pair(stride) if stride else pair(pool.args[1]), pair(padding)
