"""Runs a TOSA flatbuffer on the TOSA reference model (tosa-tools): the TOSA target's device."""

from __future__ import annotations

import numpy as np
import tosa_reference_model

from etarm.errors import EtarmError
from etarm.tosa_ir.mapping import ML_FLOATS


def raw_bits(array: np.ndarray) -> np.ndarray:
    """The reference model reads a tensor's bytes as its TOSA type, and numpy's buffer protocol has
    no ml_dtypes types (bf16, fp8): those go in as unsigned integers of the same bits."""
    if array.dtype in ML_FLOATS:
        return array.view(f"u{array.dtype.itemsize}")
    return array


def run_tosa(flatbuffer: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Runs a TOSA flatbuffer; raises if the reference model rejects the graph.

    Inputs may be ml_dtypes arrays (bf16, fp8); such outputs come back as raw bytes
    (a void dtype of the element's size) for the caller to ``view`` as its type."""
    outputs, status = tosa_reference_model.run(flatbuffer, [raw_bits(array) for array in inputs])
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise EtarmError(f"the TOSA reference model rejected the graph: {status}")
    return list(outputs)
