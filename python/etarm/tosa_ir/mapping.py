"""Mapping between torch and TOSA data types."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError

_TORCH_TO_TOSA = {
    torch.float32: ts.DType.FP32,
    torch.float16: ts.DType.FP16,
    torch.bfloat16: ts.DType.BF16,
    torch.float8_e4m3fn: ts.DType.FP8E4M3,
    torch.float8_e5m2: ts.DType.FP8E5M2,
    torch.int8: ts.DType.INT8,
    torch.int16: ts.DType.INT16,
    torch.int32: ts.DType.INT32,
    torch.bool: ts.DType.BOOL,
    # TOSA 1.0 has no 64-bit integers: the int64 passes narrow them to int32 first.
    torch.int64: ts.DType.INT32,
}

_ML_DTYPES_TYPES = (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)
# Their numpy dtypes (ml_dtypes'), which numpy's buffer protocol and torch.from_numpy do not know.
ML_FLOATS = frozenset(np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2))

_TOSA_TO_NUMPY = {
    ts.DType.FP32: np.float32,
    ts.DType.FP16: np.float16,
    # numpy has no bf16/fp8: ml_dtypes' types are what tosa_serializer and the reference model take.
    ts.DType.BF16: ml_dtypes.bfloat16,
    ts.DType.FP8E4M3: ml_dtypes.float8_e4m3fn,
    ts.DType.FP8E5M2: ml_dtypes.float8_e5m2,
    ts.DType.INT8: np.int8,
    ts.DType.INT16: np.int16,
    ts.DType.INT32: np.int32,
    ts.DType.INT48: np.int64,  # the int48 accumulator's biases (int16 convolutions)
    ts.DType.BOOL: np.bool_,
    ts.DType.SHAPE: np.int64,
}


def tosa_dtype(dtype: torch.dtype):
    try:
        return _TORCH_TO_TOSA[dtype]
    except KeyError:
        raise EtarmError(f"data type {dtype} has no TOSA equivalent") from None


def numpy_dtype(dtype):
    return _TOSA_TO_NUMPY[dtype]


def tensor_array(tensor: torch.Tensor) -> np.ndarray:
    """A tensor's values as numpy holds them: bf16/fp8 (which numpy lacks and torch cannot
    export) as ml_dtypes arrays, converted exactly through float32."""
    tensor = tensor.detach().cpu()
    if tensor.dtype in _ML_DTYPES_TYPES:
        return tensor.float().numpy().astype(numpy_dtype(_TORCH_TO_TOSA[tensor.dtype]))
    return tensor.numpy()


def is_float(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def fits_int32(values) -> bool:
    """Whether every value (a number or a tensor) is an int32; symbolic values cannot be proven to be."""
    if isinstance(values, torch.Tensor):
        return values.numel() == 0 or (int(values.min()) >= INT32_MIN and int(values.max()) <= INT32_MAX)
    if isinstance(values, (bool, int, float)):
        return INT32_MIN <= values <= INT32_MAX
    return False


def narrow_int64(values: torch.Tensor, what: str) -> torch.Tensor:
    """int64 data as the int32 TOSA holds it (TOSA 1.0 has no int64); raises if a value does not fit."""
    if not fits_int32(values):
        raise EtarmError(
            f"{what} holds int64 values in [{int(values.min())}, {int(values.max())}], outside the int32 range "
            f"[{INT32_MIN}, {INT32_MAX}] of TOSA 1.0 (which has no int64)"
        )
    return values.to(torch.int32)

