"""What each Ethos-U family runs, as rules over operator parameters.

Sources: the constraints Vela 5.2.0 documents (``vela --supported-ops-report``, TOSA
sections) and what Vela 5.2.0 compiled or refused when run on small TOSA graphs (noted
"measured" where it differs from the documentation). Each rule returns the reason an
operator cannot run on the NPU, or None. The ATen-level partitioner checks
(operator_support.py) and the TOSA-level checks run before Vela (tosa_checks.py) both
use them, so one fact lives in one place.

Ethos-U55 and Ethos-U65 share their operator support; Ethos-U85 runs the whole TOSA 1.0
PRO-INT profile with EXT-INT16 except TRANSPOSE_CONV2D/CONV3D with non-constant weights.
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

# Feature-map channels an NPU convolution or pooling reads (measured: 65536 compiles,
# 70000 does not, on U55 and U85 alike).
MAX_CHANNELS = 65536
# TOSA 1.0 level 8k: tensors have at most 6 dimensions (Vela's I/O shapes are 6-D).
MAX_RANK = 6
AXIS_LIMIT = 65536  # 2**16: the U55/U65 limit on most axis sizes and products
ARGMAX_MAX_CHANNELS = 127
POOL_PADDED_MAX_KERNEL = 8
MAX_NATIVE_STRIDE = 3


def is_u55_class(family: str) -> bool:
    """Ethos-U55 and Ethos-U65 share Vela's operator support."""
    return family in ("u55", "u65")


def family_label(family: str) -> str:
    return "Ethos-U55/U65" if is_u55_class(family) else "Ethos-U85"


def rank_reason(shape: Sequence[int], what: str = "a tensor") -> str | None:
    if len(shape) > MAX_RANK:
        return f"{what} has rank {len(shape)}; Ethos-U (TOSA level 8k) handles at most {MAX_RANK} dimensions"
    return None


def dtype_reason(family: str, dtype: str, what: str = "a tensor") -> str | None:
    if dtype == "int64":
        # etarm narrows int64 to int32 inside a partition, but the payload passes the
        # partition's inputs and outputs as they are: int8/int16/int32/bool only.
        return f"{what} is int64: Ethos-U partitions read and write int8, int16, int32 and bool tensors only"
    if dtype == "bool" and is_u55_class(family):
        return (
            f"{what} is boolean: Ethos-U55/U65 have no boolean tensors "
            "(no comparisons, logical operators or SELECT)"
        )
    return None


def u55_operator_reason(family: str, tosa_op: str, what: str) -> str | None:
    """A TOSA operator Vela documents as not supported on Ethos-U55/U65 (``what`` needs it)."""
    if is_u55_class(family):
        return f"{what} needs TOSA {tosa_op}, which Ethos-U55/U65 do not run"
    return None


def int32_only_reason(family: str, dtype: str, what: str) -> str | None:
    """Shifts: Ethos-U55/U65 shift int32 values only."""
    if is_u55_class(family) and dtype != "int32":
        return f"{what} on {dtype} values: Ethos-U55/U65 shift int32 values only"
    return None


def integer_product_reason(dtype: str, what: str) -> str | None:
    """TOSA 1.0 MUL of int32 values with shift 0 keeps the low 32 bits of a product that
    overflows (the specification's pseudocode and the reference model); the NPU's output stage
    saturates it instead (measured on the Ethos-U55 NPU model: 2147483647 where TOSA gives
    1864679492). Applied to every family: the U85 output stage also clamps to the OFM type (not
    measured). Quantized products are not concerned: their operands are bounded int8/int16."""
    if dtype == "int32":
        return f"{what} of int32 values: TOSA wraps an overflowing int32 product, the NPU saturates it"
    return None


def reduce_extreme_reason(family: str, dtype: str, what: str) -> str | None:
    """REDUCE_MAX / REDUCE_MIN: int8 and int16 only on Ethos-U55/U65."""
    if is_u55_class(family) and dtype not in ("int8", "int16"):
        return f"{what} of {dtype} values: Ethos-U55/U65 reduce int8 and int16 only"
    return None


def reshaped_minimum_reason(family: str, dtype: str, what: str) -> str | None:
    """Measured: Vela 5.2.0 rewrites REDUCE_MIN as SUB -> REDUCE_MAX -> SUB and, when a RESHAPE
    dropping the reduced axis reads the result, gives the last SUB the reshaped shape but reads
    the maxima in the unreshaped one (every row repeats one value). At int8 the pass
    minima_as_complemented_maxima avoids it with exact table lookups; int16's interpolated
    table cannot complement the largest values exactly."""
    if is_u55_class(family) and dtype == "int16":
        return f"{what} of int16 values that drops the reduced axis: Vela 5.2.0 reads its result in the wrong shape"
    return None


def narrowing_cast_reason(family: str, source: str, result: str) -> str | None:
    """Documented: no down-casting from int32 on U55/U65. Measured: Vela 5.2.0 compiles such a
    CAST, but whether the NPU wraps as TOSA CAST does is unknown, so the documented rule stands
    (passes/extremum_casts_as_rescales.py turns the CASTs whose values fit into RESCALEs)."""
    if is_u55_class(family) and source == "int32" and result in ("int8", "int16"):
        return f"casting int32 to {result}: Ethos-U55/U65 do not narrow int32 by casting"
    return None


def channels_reason(channels: int, what: str) -> str | None:
    if channels > MAX_CHANNELS:
        return f"{what} reads {channels} channels; the NPU reads at most {MAX_CHANNELS}"
    return None


def convolution_reason(
    family: str,
    stride: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    depthwise: bool,
    in_channels: int,
) -> str | None:
    """CONV2D / DEPTHWISE_CONV2D (padding: any per-side amounts)."""
    reason = channels_reason(in_channels, "the convolution")
    if reason or not is_u55_class(family):
        return reason
    big = max(stride) > MAX_NATIVE_STRIDE
    if big and depthwise:
        return f"depthwise convolution stride {list(stride)}: Ethos-U55/U65 support strides 1..{MAX_NATIVE_STRIDE}"
    if big and (max(dilation) > 1 or any(padding)):
        return (
            f"convolution stride {list(stride)} with dilation {list(dilation)} and padding {list(padding)}: "
            f"on Ethos-U55/U65 a stride above {MAX_NATIVE_STRIDE} needs dilation 1 and no padding"
        )
    return None


def transpose_convolution_reason(
    family: str, stride: Sequence[int], input_hw: Sequence[int], kernel_hw: Sequence[int]
) -> str | None:
    if not is_u55_class(family):
        return None
    stride = tuple(stride)
    if stride in ((1, 1), (2, 2)):
        return None
    if stride == (1, 2) and input_hw[0] == 1 and kernel_hw[0] == 1:
        return None
    if stride == (2, 1) and input_hw[1] == 1 and kernel_hw[1] == 1:
        return None
    return (
        f"transposed convolution stride {list(stride)}: Ethos-U55/U65 support (1,1) and (2,2), "
        "(1,2) only for height-1 input and kernel, (2,1) only for width-1 input and kernel"
    )


def pool_reason(
    family: str, kind: str, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int], channels: int
) -> str | None:
    """MAX_POOL2D / AVG_POOL2D (kind "max" or "avg")."""
    reason = channels_reason(channels, f"{kind} pooling")
    if reason or not is_u55_class(family):
        return reason
    padded = any(padding)
    if padded and max(stride) > MAX_NATIVE_STRIDE:  # measured: stride 4 compiles only without padding
        return (
            f"{kind} pooling stride {list(stride)} with padding: "
            f"Ethos-U55/U65 need stride <= {MAX_NATIVE_STRIDE} when padding"
        )
    if kind == "avg" and padded and max(kernel) > POOL_PADDED_MAX_KERNEL:
        return (
            f"average pooling kernel {list(kernel)} with padding: Ethos-U55/U65 support padded kernels "
            f"up to {POOL_PADDED_MAX_KERNEL}x{POOL_PADDED_MAX_KERNEL}"
        )
    return None


def matmul_reason(family: str, dtype: str, reduced: int, columns: int) -> str | None:
    """MATMUL of two feature maps (dtype of the operands, K and N of [M,K] x [K,N])."""
    if not is_u55_class(family):
        return None
    if dtype != "int8":
        return f"matrix multiplication of {dtype} operands: Ethos-U55/U65 multiply int8 feature maps only"
    if reduced > AXIS_LIMIT or columns > AXIS_LIMIT:
        return (
            f"matrix multiplication with K={reduced}, N={columns}: Ethos-U55/U65 need both <= {AXIS_LIMIT}"
        )
    return None


def table_reason(family: str, dtype: str) -> str | None:
    """TABLE (look-up-table activations such as sigmoid, tanh, exp). Every family looks up
    int8 values, and int16 ones with TOSA's interpolated 513-entry tables (Vela 5.2 builds
    Ethos-U55/U65's 16-bit look-up table from them: measured, all on the NPU)."""
    if dtype not in ("int8", "int16"):
        return f"table look-up on {dtype} values: Ethos-U looks up int8 and int16 values"
    return None


def argmax_reason(family: str, shape: Sequence[int], axis: int) -> str | None:
    if not is_u55_class(family):
        return None
    rank = len(shape)
    axis = axis % rank if rank else 0
    if rank > 4:
        return f"argmax over a rank-{rank} tensor: Ethos-U55/U65 support ranks 1..4"
    if axis != rank - 1:
        return f"argmax over dimension {axis}: Ethos-U55/U65 reduce over the innermost (channel) dimension only"
    batch = math.prod(shape[:-3]) if rank == 4 else 1
    if batch != 1:
        return f"argmax with batch {batch}: Ethos-U55/U65 need batch 1"
    if shape[-1] > ARGMAX_MAX_CHANNELS:
        return f"argmax over {shape[-1]} values: Ethos-U55/U65 support at most {ARGMAX_MAX_CHANNELS}"
    if math.prod(shape[-3:-1]) > AXIS_LIMIT:
        return f"argmax over a {list(shape)} tensor: Ethos-U55/U65 need H*W <= {AXIS_LIMIT}"
    return None


def sum_split(size: int) -> tuple[int, int]:
    """(outer, inner) with outer * inner >= size, both <= 2**16: how a sum over ``size``
    values goes in two steps (exactly ``size`` when it factors so, else zero-padded)."""
    low = -(-size // AXIS_LIMIT)
    outer = next((d for d in range(low, AXIS_LIMIT + 1) if size % d == 0 and size // d <= AXIS_LIMIT), None)
    return (outer, size // outer) if outer else (low, AXIS_LIMIT)


def sum_steps(shape: Sequence[int], axis: int) -> list[tuple[tuple[int, ...], int]]:
    """The (shape, axis) of each REDUCE_SUM a sum over ``axis`` of ``shape`` takes on
    Ethos-U55/U65: one, or two (inner part first) for more than 2**16 values."""
    axis %= len(shape)
    if shape[axis] <= AXIS_LIMIT:
        return [(tuple(shape), axis)]
    outer, inner = sum_split(shape[axis])
    split = (*shape[:axis], outer, inner, *shape[axis + 1 :])
    once = (*shape[:axis], outer, 1, *shape[axis + 1 :])
    return [(split, axis + 1), (once, axis)]


def reduce_sum_reason(family: str, shape: Sequence[int], axis: int) -> str | None:
    """A sum the NPU runs, in steps where it holds more than 2**16 values (passes/sums_in_steps.py)."""
    if not is_u55_class(family):
        return None
    for step_shape, step_axis in sum_steps(shape, axis):
        reason = native_reduce_sum_reason(family, step_shape, step_axis)
        if reason:
            return reason if len(step_shape) == len(shape) else f"sum over {shape[axis % len(shape)]} values in steps: {reason}"
    return None


def native_reduce_sum_reason(family: str, shape: Sequence[int], axis: int) -> str | None:
    """REDUCE_SUM as Vela documents it for Ethos-U55/U65."""
    if not is_u55_class(family):
        return None
    axis %= len(shape)
    if shape[axis] > AXIS_LIMIT:
        return f"sum over {shape[axis]} values: Ethos-U55/U65 reduce at most {AXIS_LIMIT}"
    if axis != len(shape) - 1:
        before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
        if before > AXIS_LIMIT or after > AXIS_LIMIT:
            return (
                f"sum over dimension {axis} of {list(shape)}: Ethos-U55/U65 need the products of the dimensions "
                f"before ({before}) and after ({after}) it to be <= {AXIS_LIMIT}"
            )
    return None


def reverse_reason(family: str, rank: int, axis: int) -> str | None:
    # measured: the innermost axis of a rank <= 4 tensor does not compile on U55 (documented: H and W only)
    if is_u55_class(family) and rank <= 4 and axis % rank == rank - 1:
        return "reversing the innermost (channel) dimension: Ethos-U55/U65 reverse along height and width only"
    return None


def resize_reason(family: str, scale_y: float, scale_x: float, bilinear: bool = False) -> str | None:
    if not is_u55_class(family):
        return None
    if bilinear:
        # measured: no RESIZE BILINEAR (2x, any RESCALE after it) compiles for U55 in Vela 5.2.0
        return "bilinear resize: Vela 5.2.0 compiles no TOSA RESIZE BILINEAR for Ethos-U55/U65"
    for scale in (scale_y, scale_x):
        if scale not in (2, 4, 8):
            return f"resize by {scale_y:g}x{scale_x:g}: Ethos-U55/U65 upscale by 2, 4 or 8 only"
    return None


def _squeezed_and_merged(shape: Sequence[int], perm: Sequence[int]) -> tuple[list[int], list[int]]:
    """The same transpose with size-1 axes dropped and axes that stay adjacent merged."""
    kept = [a for a in range(len(shape)) if shape[a] != 1]
    perm = [a for a in perm if shape[a] != 1]
    runs: list[list[int]] = []
    for axis in perm:
        if runs and kept.index(axis) == kept.index(runs[-1][-1]) + 1:
            runs[-1].append(axis)
        else:
            runs.append([axis])
    order = sorted(range(len(runs)), key=lambda r: runs[r][0])
    merged_shape = [math.prod(shape[a] for a in runs[r]) for r in order]
    merged_perm = [order.index(r) for r in range(len(runs))]
    return merged_shape, merged_perm


def _transpose_fits(shape: Sequence[int]) -> bool:
    rank = len(shape)
    if rank <= 3 or all(d == 1 for d in shape[:-3]):
        return all(d <= AXIS_LIMIT for d in shape[-3:])
    return all(math.prod(shape[i] for i in kept) <= AXIS_LIMIT for kept in itertools.combinations(range(rank), rank - 2))


def transpose_reason(family: str, shape: Sequence[int], perm: Sequence[int], dtype: str) -> str | None:
    """TRANSPOSE on Ethos-U55/U65.

    Documented: H, W, C <= 2**16 for 3-D (or outer-dims-1) tensors, else every product
    of rank-2 dimensions <= 2**16. Measured: Vela first drops size-1 axes and merges
    axes that stay adjacent (a [300,300,2,2] swap of the first two axes compiles), and
    the narrower int32 permutation list it documents does not apply (all int32
    permutations tried, ranks 3 to 5, compiled).
    """
    if not is_u55_class(family):
        return None
    rank = len(shape)
    perm = [p % rank for p in perm] if rank else []
    if list(perm) == list(range(rank)):
        return None
    if _transpose_fits(shape) or _transpose_fits(_squeezed_and_merged(shape, perm)[0]):
        return None
    return (
        f"transposing a {dtype} {list(shape)} tensor by {list(perm)}: Ethos-U55/U65 need each dimension <= {AXIS_LIMIT} "
        f"and, above rank 3, every product of rank-2 dimensions <= {AXIS_LIMIT}"
    )
