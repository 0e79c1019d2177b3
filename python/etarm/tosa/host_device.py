"""The TOSA target's device on the host: the TOSA reference model runs TOSABackend payloads
when etarm.runtime executes a .pte (``etarm run``)."""

from __future__ import annotations

import numpy as np
from tosa.TosaGraph import TosaGraph

from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.mapping import ML_FLOATS

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
        """Runs the graph on the delegate's arguments. The graph's inputs and outputs must be
        what the program passes, with one conversion: TOSA has no int64 (etarm lowers int64
        tensors to int32 ones), so an int64 input is narrowed (its values must fit) and an int32
        result fills an int64 output. Anything else is an error naming the argument, never a
        silent conversion: a partition whose integers the program takes for floats is a bug."""
        inputs = [_narrowed(a, index) for index, a in enumerate(args[: self.num_inputs])]
        output_slots = args[self.num_inputs :]
        outputs = run_tosa(self.flatbuffer, inputs)
        if len(outputs) != len(output_slots):
            raise RuntimeError(f"the TOSA graph gave {len(outputs)} outputs for {len(output_slots)} output tensors")
        return [_as_slot(out, slot, index) for index, (out, slot) in enumerate(zip(outputs, output_slots))]


def _narrowed(value: np.ndarray, index: int) -> np.ndarray:
    if value.dtype != np.int64:
        return value
    info = np.iinfo(np.int32)
    if value.size and (value.min() < info.min or value.max() > info.max):
        raise ValueError(f"input {index} of the TOSA graph holds int64 values outside the int32 range it computes in")
    return value.astype(np.int32)


def _as_slot(result: np.ndarray, slot: np.ndarray, index: int) -> np.ndarray:
    """``result`` as the output tensor ``slot`` the program passes: same dtype (int32 widens
    into int64; bf16/fp8 results, raw bytes from the reference model, are read as the slot's
    ml_dtypes type of their size) and shape."""
    if result.dtype.kind == "V" and slot.dtype in ML_FLOATS and result.dtype.itemsize == slot.dtype.itemsize:
        result = result.view(slot.dtype)
    widened = result.dtype == np.int32 and slot.dtype == np.int64
    if result.dtype != slot.dtype and not widened:
        raise TypeError(
            f"output {index} of the TOSA graph is {result.dtype}{list(result.shape)}, but the program's "
            f"tensor for it is {slot.dtype}{list(slot.shape)}"
        )
    if result.shape != slot.shape:
        raise ValueError(
            f"output {index} of the TOSA graph has shape {list(result.shape)}; the program's tensor {list(slot.shape)}"
        )
    return result.astype(np.int64) if widened else result


class TosaReferenceDevice:
    def install(self, extension, backend_id: str, compile_specs: list) -> None:
        """Registers this device as ``backend_id``'s delegate in etarm.runtime's extension."""
        extension.register_python_backend(backend_id, self)

    def load(self, payload: bytes, compile_specs: dict[str, bytes]) -> TosaReferenceSession:
        return TosaReferenceSession(payload)
