"""cortex_m::transpose: an int8 or int16 tensor of rank 4 or less with its dims permuted (permute_copy of quantized
data).

The values move unchanged: the result keeps the input's quantization, so there is nothing to requantize.
The CMSIS-NN snapshot has no arm_transpose_s8; kernels/cortex_m/op_transpose.cc is the project's.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define

# The largest rank the kernel walks (its loop nest is four deep).
TRANSPOSE_LARGEST_RANK = 4


def transpose(values, perm):
    return values.permute(list(perm)).contiguous()


def _fake(values, perm):
    return torch.empty([values.shape[d] for d in perm], dtype=values.dtype, device=values.device)


define("transpose", "Tensor self, int[] perm", transpose, _fake, cmsis_nn=False)
