"""Runs a TOSA flatbuffer on the TOSA reference model (tosa-tools): the TOSA target's device."""

from __future__ import annotations

import numpy as np
import tosa_reference_model

from etarm.errors import EtarmError


def run_tosa(flatbuffer: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Runs a TOSA flatbuffer; raises if the reference model rejects the graph."""
    outputs, status = tosa_reference_model.run(flatbuffer, inputs)
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise EtarmError(f"the TOSA reference model rejected the graph: {status}")
    return list(outputs)
