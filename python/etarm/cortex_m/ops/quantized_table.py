"""cortex_m::quantized_table: a function of one quantized tensor (sigmoid, tanh, hardswish, gelu, silu, exp, ...) as a
lookup in a table computed ahead of time (``lowering/quantized_lookup.py`` ``lookup_table_values``, the TOSA INT
lowering's tables), any shape, the output of the input's type. The table's type and size say how it is read:

- int8 input, 256 int8 entries: ``out = table[input + 128]``, ``quantize(f(dequantize(q)))`` for every q, so the
  result is the PT2E model's bit for bit (TOSA TABLE int8);
- int16 input, 513 int16 entries: TOSA's int16 TABLE, ``i = input + 32768``, ``base = table[i >> 7]``, ``next =
  table[(i >> 7) + 1]``, ``v = (base << 7) + (next - base) * (i & 127)``, then ``out = (v + 64) >> 7`` (the RESCALE
  by 2**-7 TOSA's lowering follows it with, one rounding half up); the compiler keeps it where it stays within
  ``INT16_TABLE_MAX_LSB`` (2) output steps of the PT2E model for every int16 input;
- int16 input, 65536 int16 entries: ``out = table[input + 32768]``, exact, for functions the interpolation cannot
  follow (steps such as floor or sign, slopes that blow up such as log or sqrt near 0).

int16 results are at least -32767 (the a16w8 range every cortex_m kernel writes). The project's kernel: CMSIS-NN has
no generic look-up table.
"""

from __future__ import annotations

import torch

from etarm.cortex_m.ops.library import define, saturation

INT8_ENTRIES = 256
INT16_INTERPOLATED_ENTRIES = 513
INT16_EXACT_ENTRIES = 65536
SEGMENT_BITS = 7  # the interpolated table: 128 inputs per segment


def table_problem(x_dtype: torch.dtype, table: torch.Tensor) -> str | None:
    """Why ``table`` cannot be read for an input of ``x_dtype`` (None when it can)."""
    sizes = {torch.int8: (INT8_ENTRIES,), torch.int16: (INT16_INTERPOLATED_ENTRIES, INT16_EXACT_ENTRIES)}
    if x_dtype not in sizes:
        return f"the input is {x_dtype}, not int8 or int16"
    if table.dtype != x_dtype or table.dim() != 1 or table.numel() not in sizes[x_dtype]:
        return f"a {x_dtype} input needs a 1-D {x_dtype} table of {' or '.join(map(str, sizes[x_dtype]))} entries"
    return None


def quantized_table(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    problem = table_problem(x.dtype, table)
    if problem is not None:
        raise ValueError(f"cortex_m::quantized_table: {problem}")
    values = table.to(torch.int64)
    offset = x.to(torch.int64) - torch.iinfo(x.dtype).min
    if x.dtype == torch.int16 and table.numel() == INT16_INTERPOLATED_ENTRIES:
        index, fraction = offset >> SEGMENT_BITS, offset & ((1 << SEGMENT_BITS) - 1)
        base = values[index]
        interpolated = (base << SEGMENT_BITS) + (values[index + 1] - base) * fraction
        found = (interpolated + (1 << (SEGMENT_BITS - 1))) >> SEGMENT_BITS
    else:
        found = values[offset]
    return found.clamp(*saturation(x.dtype)).to(x.dtype)


def _fake(x, table):
    return torch.empty_like(x)


define("quantized_table", "Tensor input, Tensor table", quantized_table, _fake, cmsis_nn=False)
