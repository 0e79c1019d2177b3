"""Real scales as CMSIS-NN multipliers and shifts, computed ahead of time for the kernels."""

from __future__ import annotations

from etarm.errors import EtarmError
from etarm.lowering import quantized


def multiplier_and_shift(scale: float, largest_shift: int = 0) -> tuple[int, int]:
    """(multiplier, shift) with ``multiplier * 2**(shift - 31) ~= scale``: the TOSA RESCALE
    parameters etarm's TOSA lowerings use (so results match them bit for bit), in CMSIS-NN's
    convention, where the shift counts left.

    Raises EtarmError for a scale the kernels cannot apply: CMSIS-NN's shifts are in [-31, 0]
    (kernels/cortex_m/cortex_m_util.h valid_int8), i.e. scales below 1; kernels written in the
    project take shifts up to ``largest_shift``.
    """
    multiplier, right_shift = quantized.multiplier_and_shift(scale)
    shift = 31 - right_shift
    if shift > largest_shift:
        below = "below 1" if largest_shift == 0 else f"below 2**{largest_shift}"
        raise EtarmError(f"cannot requantize by {scale}: the Cortex-M kernels take scales {below}")
    return multiplier, shift
