"""cortex_m::quantized_table: a function of one quantized tensor (sigmoid, tanh, hardswish, gelu, silu, exp, ...) as a
lookup in a table computed ahead of time (``lowering/quantized_lookup.py`` ``lookup_table_values``, the TOSA INT
lowering's tables), any shape, the output of the input's type. The table's type and size say how it is read:

- int8 input, 256 int8 entries: ``out = table[input + 128]``, ``quantize(f(dequantize(q)))`` for every q, so the
  result is the PT2E model's bit for bit (TOSA TABLE int8);
- int16 input, 513 int16 entries: TOSA's int16 TABLE, ``i = input + 32768``, ``base = table[i >> 7]``, ``next =
  table[(i >> 7) + 1]``, ``v = (base << 7) + (next - base) * (i & 127)``, then ``out = (v + 64) >> 7`` (the RESCALE
  by 2**-7 TOSA's lowering follows it with, one rounding half up); the compiler keeps it where it stays within
  ``INT16_TABLE_MAX_LSB`` (2) output steps of the PT2E model for every int16 input;
- int16 input, 1025 + 128 k int16 entries (patched): the 513 entries, then one slot per 128-input segment (-1, or the
  index j of a patch), then k patches of 128 exact results: a segment whose slot is j reads ``table[1025 + 128 j +
  (i & 127)]``, the others interpolate as above. The compiler patches the segments where interpolating misses the PT2E
  model by more than 2 steps (a kink such as hardswish's, the bend where a clipped output range saturates);
- int16 input, 65536 int16 entries: ``out = table[input + 32768]``, exact, for functions the interpolation cannot
  follow in most segments (steps such as floor or sign).

int16 results are at least -32767 (the a16w8 range every cortex_m kernel writes). The project's kernel: CMSIS-NN has
no generic look-up table.
"""

from __future__ import annotations

import numpy as np
import torch

from etarm.cortex_m.ops.library import define, saturation

INT8_ENTRIES = 256
INT16_INTERPOLATED_ENTRIES = 513
INT16_EXACT_ENTRIES = 65536
SEGMENT_BITS = 7  # the interpolated table: 128 inputs per segment
SEGMENT = 1 << SEGMENT_BITS
SEGMENTS = INT16_INTERPOLATED_ENTRIES - 1
# A patched table: the 513 entries, one slot per segment (-1: interpolate; j: read patch j), then the patches.
PATCHES_START = INT16_INTERPOLATED_ENTRIES + SEGMENTS


def is_patched_size(entries: int) -> bool:
    """A patched table's size: 1025 + 128 k for k in 1..503 (65536 itself is the exact table)."""
    return PATCHES_START < entries < INT16_EXACT_ENTRIES and (entries - PATCHES_START) % SEGMENT == 0


def patched_int16_table(entries: np.ndarray, exact: np.ndarray, max_steps: int) -> np.ndarray | None:
    """The 513 interpolated ``entries`` with the exact results (every int16 input's, lowest first) of each segment where
    interpolating misses any by more than ``max_steps``, as one int16 table; None when it would not be smaller than
    the 65536 exact results."""
    error = np.abs(interpolated_int16(entries.astype(np.int64), np.arange(-32768, 32768)) - exact.astype(np.int64))
    missed = np.flatnonzero(error.reshape(SEGMENTS, SEGMENT).max(axis=1) > max_steps)
    if not is_patched_size(PATCHES_START + SEGMENT * len(missed)):
        return None
    slots = np.full(SEGMENTS, -1, dtype=np.int64)
    slots[missed] = np.arange(len(missed))
    patches = exact.reshape(SEGMENTS, SEGMENT)[missed].reshape(-1)
    return np.concatenate([entries, slots, patches]).astype(np.int16)


def interpolated_int16(entries, x):
    """TOSA's int16 TABLE of ``entries`` at int16 inputs ``x`` and its rescale by 2**-7 (half up); numpy or torch."""
    offset = x + 32768
    index, fraction = offset >> SEGMENT_BITS, offset & (SEGMENT - 1)
    base = entries[index]
    return (base * SEGMENT + (entries[index + 1] - base) * fraction + SEGMENT // 2) >> SEGMENT_BITS


def table_problem(x_dtype: torch.dtype, table: torch.Tensor) -> str | None:
    """Why ``table`` cannot be read for an input of ``x_dtype`` (None when it can)."""
    if x_dtype not in (torch.int8, torch.int16):
        return f"the input is {x_dtype}, not int8 or int16"
    entries = table.numel()
    if x_dtype == torch.int8:
        fits = entries == INT8_ENTRIES
    else:
        fits = entries in (INT16_INTERPOLATED_ENTRIES, INT16_EXACT_ENTRIES) or is_patched_size(entries)
    if table.dtype != x_dtype or table.dim() != 1 or not fits:
        sizes = "256" if x_dtype == torch.int8 else "513, 65536 or 1025 + 128 k (patched)"
        return f"a {x_dtype} input needs a 1-D {x_dtype} table of {sizes} entries"
    if is_patched_size(entries):
        slots = table[INT16_INTERPOLATED_ENTRIES:PATCHES_START].to(torch.int64)
        if bool(((slots < -1) | (slots >= (entries - PATCHES_START) // SEGMENT)).any()):
            return "a patched table's segment slots must be -1 or a patch's index"
    return None


def quantized_table(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    problem = table_problem(x.dtype, table)
    if problem is not None:
        raise ValueError(f"cortex_m::quantized_table: {problem}")
    values = table.to(torch.int64)
    offset = x.to(torch.int64) - torch.iinfo(x.dtype).min
    entries = table.numel()
    if x.dtype == torch.int8 or entries == INT16_EXACT_ENTRIES:
        found = values[offset]
    else:
        found = interpolated_int16(values, x.to(torch.int64))
        if entries > INT16_INTERPOLATED_ENTRIES:
            slot = values[INT16_INTERPOLATED_ENTRIES + (offset >> SEGMENT_BITS)]
            patched = values[PATCHES_START + slot.clamp(min=0) * SEGMENT + (offset & (SEGMENT - 1))]
            found = torch.where(slot >= 0, patched, found)
    return found.clamp(*saturation(x.dtype)).to(x.dtype)


def _fake(x, table):
    return torch.empty_like(x)


define("quantized_table", "Tensor input, Tensor table", quantized_table, _fake, cmsis_nn=False)
