"""Mapping between torch and TOSA data types."""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError

_TORCH_TO_TOSA = {
    torch.float32: ts.DType.FP32,
    torch.float16: ts.DType.FP16,
    torch.bfloat16: ts.DType.BF16,
    torch.int8: ts.DType.INT8,
    torch.int16: ts.DType.INT16,
    torch.int32: ts.DType.INT32,
    torch.bool: ts.DType.BOOL,
    # TOSA 1.0 has no 64-bit integers: the int64 passes narrow them to int32 first.
    torch.int64: ts.DType.INT32,
}

_TOSA_TO_NUMPY = {
    ts.DType.FP32: np.float32,
    ts.DType.FP16: np.float16,
    ts.DType.INT8: np.int8,
    ts.DType.INT16: np.int16,
    ts.DType.INT32: np.int32,
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


def is_float(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point
