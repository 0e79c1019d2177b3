"""QuantizedMaxPool2dAsCmsisNn: a quantized max_pool2d as cortex_m.quantized_max_pool2d on NHWC data.

In the edge program ``max_pool2d`` is ``max_pool2d_with_indices(dq(x), ...)[0]``; its indices must be unused
(quantized_pool.py says what else is matched: the quantizer shares the input's parameters with a max pool).
"""

from __future__ import annotations

import operator

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from etarm.cortex_m.passes.matching import NotLowered
from etarm.cortex_m.passes.quantized_pool import QuantizedPool2dAsCmsisNn, pair, pool_arguments


class QuantizedMaxPool2dAsCmsisNn(QuantizedPool2dAsCmsisNn):
    """Replaces dequantize -> max_pool2d_with_indices [0] [-> relu/hardtanh/clamp] -> quantize (int8, the input's
    parameters) by permute -> cortex_m.quantized_max_pool2d (arm_max_pool_s8) -> permute."""

    pool_op = "aten.max_pool2d_with_indices.default"
    target = exir_ops.edge.cortex_m.quantized_max_pool2d.default

    def result_of(self, pool: torch.fx.Node) -> tuple[torch.fx.Node, list[int], list[int]]:
        stride, padding, dilation, ceil_mode = pool_arguments(pool, ([], 0, 1, False))
        if pair(dilation) != [1, 1] or ceil_mode:
            raise NotLowered("a dilated or ceil-mode max pool has no cortex_m kernel")
        users = list(pool.users)
        if len(users) != 1 or users[0].target is not operator.getitem or users[0].args[1] != 0:
            raise NotLowered("its indices are used")
        # torch's default stride is the kernel size.
        return users[0], pair(stride) if stride else pair(pool.args[1]), pair(padding)
