"""Packed int4 weights, CMSIS-NN's s4 layout: the weight's values in its row-major order, two per byte, the first of
each pair in the low nibble (two's complement, [-8, 7]). The packing runs across rows: an odd count of values per row
puts the next row's first value in the high nibble of the byte it shares; an odd total leaves the last high nibble 0.
A weight of n values takes ceil(n / 2) bytes, stored as int8.
"""

from __future__ import annotations

import math

import torch

# The range a symmetric int4 weight is quantized to (as int8's -127..127: -8 has no positive twin).
INT4_RANGE = (-7, 7)


def is_int4_range(qmin: int, qmax: int) -> bool:
    """Whether a weight quantized to [qmin, qmax] fits a nibble."""
    return -8 <= qmin <= qmax <= 7


def holds_int4(weight: torch.Tensor, qmin: int, qmax: int) -> bool:
    """Whether an int8 weight quantized to [qmin, qmax] is an int4 one (its values checked too: a constant beyond
    its own range keeps the int8 kernels, which take any int8 value)."""
    return is_int4_range(qmin, qmax) and weight.dtype == torch.int8 and bool(((weight >= -8) & (weight <= 7)).all())


def packed_size(shape) -> int:
    """Bytes of the packed form of a weight of ``shape``."""
    return (math.prod(int(d) for d in shape) + 1) // 2


def pack(values: torch.Tensor) -> torch.Tensor:
    """int8 ``values`` within [-8, 7], any shape -> int8 [ceil(n / 2)] in CMSIS-NN's s4 layout."""
    flat = values.reshape(-1).to(torch.int16)
    if values.dtype != torch.int8 or bool(((flat < -8) | (flat > 7)).any()):
        raise ValueError("pack: int8 values within [-8, 7] only")
    if flat.numel() % 2:
        flat = torch.cat([flat, flat.new_zeros(1)])
    low, high = flat[0::2] & 0xF, flat[1::2] & 0xF
    return ((high << 4) | low).to(torch.uint8).view(torch.int8)


def unpack(packed: torch.Tensor, shape) -> torch.Tensor:
    """The int8 values of ``shape`` that ``pack`` stored in ``packed``."""
    shape = [int(d) for d in shape]
    count = math.prod(shape)
    if packed.dtype != torch.int8 or packed.dim() != 1 or packed.numel() != (count + 1) // 2:
        raise ValueError(
            f"unpack: {count} values need an int8 [{(count + 1) // 2}] tensor, not {packed.dtype} {list(packed.shape)}"
        )
    byte = packed.view(torch.uint8).to(torch.int16)
    nibbles = torch.stack([byte & 0xF, byte >> 4], dim=1).reshape(-1)[:count]
    return torch.where(nibbles > 7, nibbles - 16, nibbles).to(torch.int8).reshape(shape)


def depthwise_s4_exact(in_channels: int, multiplier: int, batches: int, dilation) -> bool:
    """Whether CMSIS-NN's s4 depthwise wrapper computes this convolution exactly: its optimized kernel (multiplier 1,
    one image, no dilation) does for any channel count; the snapshot's general one (arm_depthwise_conv_s4) only for an
    even count (it reads the wrong nibbles otherwise: measured, kernels/cortex_m/test)."""
    optimized = multiplier == 1 and batches == 1 and tuple(int(d) for d in dilation) == (1, 1)
    return optimized or in_channels % 2 == 0
