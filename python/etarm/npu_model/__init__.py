"""etarm.npu_model: runs an Ethos-U55/U65 delegate payload on etarm's NPU model
(runtime/ethosu/npu_model), bit for bit what the NPU computes, without ExecuTorch:

    from etarm.npu_model import run_payload
    outputs = run_payload(payload_bytes, "ethos-u55-128", [input_array, ...])

The payload is what EthosUBackend receives (docs/payload_formats.md; `etarm compile -i DIR`
keeps each partition's as ``partition_<n>.ethosu.bin``). The inputs are laid into the
scratch arena where the payload places them, the command stream runs on the model, and the
outputs are read back from where it places them, as the delegate does on a device.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from etarm.errors import EtarmError
from etarm.ethosu.payload import EthosUPayload, PayloadError, TensorPlacement
from etarm.npu_model import _npu_model

# Vela's base-address regions: 0 the weights, 1 the scratch arena, 2 the fast scratch.
SCRATCH_REGION, FAST_SCRATCH_REGION = 1, 2
# The arena starts with this pattern, not zeros: as on a device, nothing may depend on its contents.
ARENA_FILL = 0xA5


class NpuModelError(EtarmError):
    """The NPU model refused or could not finish a command stream. ``fault`` is the kind
    ("not supported", "malformed stream", "out of bounds", "bad weights", "hazard", ...); the message
    names the command and its byte offset in the stream."""

    def __init__(self, fault: str, message: str):
        super().__init__(f"the NPU model failed ({fault}): {message}")
        self.fault = fault


def run_payload(payload: bytes, accelerator: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The outputs of the EthosUBackend ``payload`` compiled for ``accelerator`` (e.g.
    "ethos-u55-128") on ``inputs`` (one array per payload input, its dtype and shape)."""
    parsed = EthosUPayload.from_bytes(payload)
    if len(inputs) != len(parsed.inputs):
        raise PayloadError(f"the payload has {len(parsed.inputs)} inputs, {len(inputs)} were given")
    regions = {
        SCRATCH_REGION: np.full(parsed.scratch_size, ARENA_FILL, dtype=np.uint8),
        FAST_SCRATCH_REGION: np.full(parsed.fast_scratch_size, ARENA_FILL, dtype=np.uint8),
    }
    for index, (placement, value) in enumerate(zip(parsed.inputs, inputs)):
        array = np.asarray(value)
        if array.dtype != np.dtype(placement.dtype) or array.shape != placement.shape:
            raise PayloadError(
                f"input {index} is {array.dtype}{list(array.shape)}; the payload expects "
                f"{placement.dtype}{list(placement.shape)}"
            )
        _bytes_of(regions, placement, f"input {index}")[:] = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    fault, message = _npu_model.run(
        accelerator, parsed.cmd_data, parsed.weight_data, regions[SCRATCH_REGION], regions[FAST_SCRATCH_REGION]
    )
    if fault:
        raise NpuModelError(fault, message)
    return [
        _bytes_of(regions, placement, f"output {index}").view(placement.dtype).reshape(placement.shape).copy()
        for index, placement in enumerate(parsed.outputs)
    ]


def _bytes_of(regions: dict[int, np.ndarray], placement: TensorPlacement, what: str) -> np.ndarray:
    """The bytes of ``regions`` that ``placement`` occupies."""
    region = regions.get(placement.region)
    if region is None:
        raise PayloadError(
            f"{what} lies in region {placement.region}, which is neither the scratch nor the fast scratch"
        )
    if placement.offset < 0 or placement.offset + placement.nbytes > region.size:
        raise PayloadError(
            f"{what} ({placement.nbytes} bytes at offset {placement.offset}) lies outside region "
            f"{placement.region} ({region.size} bytes)"
        )
    return region[placement.offset : placement.offset + placement.nbytes]
