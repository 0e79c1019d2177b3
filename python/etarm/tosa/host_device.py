"""The TOSA target's device on the host: the TOSA reference model runs TOSABackend payloads
when etarm.runtime executes a .pte (``etarm run``)."""

from __future__ import annotations

import numpy as np
from tosa.TosaGraph import TosaGraph

from etarm.tosa.reference_model import run_tosa

# What tosa.fbs declares as file_identifier: bytes 4-8 of every TOSA flatbuffer.
TOSA_FILE_IDENTIFIER = b"TOSA"


class TosaReferenceSession:
    """One delegate call site: its TOSA flatbuffer, run on the arguments the runtime passes
    (the partition's inputs, then its output tensors to fill)."""

    def __init__(self, flatbuffer: bytes):
        if flatbuffer[4:8] != TOSA_FILE_IDENTIFIER:
            raise ValueError("the TOSABackend payload is not a TOSA flatbuffer")
        self.flatbuffer = flatbuffer
        main_block = TosaGraph.GetRootAs(flatbuffer, 0).Regions(0).Blocks(0)
        self.num_inputs = main_block.InputsLength()

    def execute(self, args: list) -> list[np.ndarray]:
        # TOSA has no int64: etarm lowers int64 tensors to int32 ones.
        inputs = [a.astype(np.int32) if a.dtype == np.int64 else a for a in args[: self.num_inputs]]
        output_slots = args[self.num_inputs :]
        outputs = run_tosa(self.flatbuffer, inputs)
        if len(outputs) != len(output_slots):
            raise RuntimeError(f"the TOSA graph gave {len(outputs)} outputs for {len(output_slots)} output tensors")
        return [out.astype(slot.dtype).reshape(slot.shape) for out, slot in zip(outputs, output_slots)]


class TosaReferenceDevice:
    def install(self, extension, backend_id: str, compile_specs: list) -> None:
        """Registers this device as ``backend_id``'s delegate in etarm.runtime's extension."""
        extension.register_python_backend(backend_id, self)

    def load(self, payload: bytes, compile_specs: dict[str, bytes]) -> TosaReferenceSession:
        return TosaReferenceSession(payload)
