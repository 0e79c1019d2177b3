"""cortex_m::pad: an int8 (or int16, a16w8) tensor (any rank the runtime holds) with ``before[d]`` and ``after[d]`` elements of
``value`` added on each side of dim d (constant_pad_nd of quantized data, pads >= 0).

The values move unchanged: CortexMQuantizer gives a pad its input's parameters, so the result keeps them and the fill
is the pad value quantized with them (what PT2E's quantize of the padded float gives). The CMSIS-NN snapshot has no
arm_pad_s8; kernels/cortex_m/op_pad.cc is the project's.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define


def pad(values, before, after, value):
    torch_order = [p for d in reversed(range(values.dim())) for p in (before[d], after[d])]
    return torch.nn.functional.pad(values, torch_order, value=value)


def _fake(values, before, after, value):
    shape = [size + b + a for size, b, a in zip(values.shape, before, after)]
    return torch.empty(shape, dtype=values.dtype, device=values.device)


define("pad", "Tensor self, int[] before, int[] after, int value", pad, _fake, cmsis_nn=False)
