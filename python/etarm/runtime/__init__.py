"""etarm.runtime: runs a .pte in this process, on ExecuTorch's genuine host runtime through
etarm's C++ runner (the ``_runtime`` extension), each delegate on its target family's host
device (TOSA payloads on the TOSA reference model, Ethos-U55/U65/U85 payloads on etarm's NPU
model).

    program = etarm.runtime.Program(open("net.pte", "rb").read())
    result = program.run(example_inputs)   # outputs, seconds, memory
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import torch

from etarm import targets
from etarm.errors import EtarmError
from etarm.pte import cpu_operators, delegate_payloads
from etarm.tosa_ir.mapping import tensor_array
from etarm.runtime import _libraries  # noqa: F401  (before _runtime, which links them)
from etarm.runtime import _runtime

# The runner's arena: planned buffers, inputs and the method's allocations. Reserved, not
# touched: only what a program uses becomes resident.
DEFAULT_ARENA_BYTES = 1 << 30


@dataclasses.dataclass(frozen=True)
class InputSpec:
    dtype: str  # numpy's name; for a non-tensor input, the value's kind (e.g. "Int")
    shape: tuple[int, ...] | None  # None for a non-tensor input

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None


@dataclasses.dataclass
class RunResult:
    outputs: list  # per program output: a numpy array, or a Python scalar
    seconds: float  # Method::execute on the host
    memory: dict  # the runner's arena use in bytes: used, planned, input, method, arena


_devices: dict[str, object] = {}


def _install_device(backend_id: str, compile_specs) -> None:
    """Makes a delegate of ``backend_id`` runnable here, or says in one line why it cannot be."""
    if backend_id not in _devices:
        family = targets.family_of_backend(backend_id)
        if family is None:
            raise EtarmError(f"the program delegates to '{backend_id}', which is not an etarm backend")
        if family.host_device is None:
            raise EtarmError(f"the program delegates to {backend_id}: {family.no_host_device}")
        _devices[backend_id] = family.host_device()
    _devices[backend_id].install(_runtime, backend_id, list(compile_specs))


def _as_array(value) -> np.ndarray:
    """An input as numpy holds it: torch's bf16/fp8 tensors as ml_dtypes arrays (the program's
    dtype names for them: see runtime_module.cc)."""
    if isinstance(value, torch.Tensor):
        return tensor_array(value.contiguous())
    return np.asarray(value)


class Program:
    """A loaded .pte (method ``forward``), ready to run any number of times."""

    def __init__(self, pte: bytes, arena_bytes: int = DEFAULT_ARENA_BYTES):
        payloads = delegate_payloads(pte)
        self.backends = sorted({payload.backend_id for payload in payloads})
        missing = sorted(set(cpu_operators(pte)) - _runtime.registered_operators())
        if missing:
            raise EtarmError(f"the host runtime has no kernel for {', '.join(missing)} (left on the CPU by the compiler)")
        for payload in payloads:
            _install_device(payload.backend_id, payload.compile_specs)
        try:
            self._program = _runtime.Program(pte, arena_bytes)
        except RuntimeError as exc:
            raise EtarmError(f"the runtime cannot load the program: {exc}") from exc
        self.input_specs = [
            InputSpec(dtype, tuple(shape) if shape is not None else None)
            for dtype, shape in self._program.input_specs()
        ]

    def _input_bytes(self, inputs: Sequence) -> bytes:
        tensor_specs = [spec for spec in self.input_specs if spec.is_tensor]
        if len(inputs) != len(tensor_specs):
            raise EtarmError(f"the program takes {len(tensor_specs)} tensor input(s), {len(inputs)} given")
        chunks = []
        for index, (value, spec) in enumerate(zip(inputs, tensor_specs)):
            array = _as_array(value)
            if array.shape != spec.shape:
                raise EtarmError(f"input {index}: shape {list(array.shape)} is not the program's {list(spec.shape)}")
            if not np.can_cast(array.dtype, spec.dtype, casting="same_kind"):
                raise EtarmError(f"input {index}: dtype {array.dtype} is not the program's {spec.dtype}")
            chunks.append(np.ascontiguousarray(array, dtype=spec.dtype).tobytes())
        return b"".join(chunks)

    def run(self, inputs: Sequence) -> RunResult:
        """Runs ``forward`` once on ``inputs`` (tensors or arrays, one per tensor input)."""
        data = self._input_bytes(inputs)
        try:
            outputs, seconds, memory = self._program.run(data)
        except RuntimeError as exc:
            raise EtarmError(f"the program failed: {exc}") from exc
        return RunResult(list(outputs), seconds, dict(memory))
