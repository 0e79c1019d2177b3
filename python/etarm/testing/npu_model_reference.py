"""Runs an Ethos-U partition's command stream on the NPU model (etarm.npu_model) and its
.tosa on the TOSA reference model with the same inputs, and says where they differ: the
partition-level proof that a Vela stream computes what its TOSA graph specifies, bit for bit.

The inputs: seeded random values over the whole range of each input's type, then all minimum,
all maximum and all zero (the extremes reach the saturating and rounding corners).
"""

from __future__ import annotations

import numpy as np

from etarm.ethosu.payload import EthosUPayload, TensorPlacement
from etarm.npu_model import NpuModelError, run_payload
from etarm.tosa.reference_model import run_tosa


def _range(dtype: np.dtype) -> tuple[int, int]:
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def input_sets(placements: tuple[TensorPlacement, ...], seed: int, random_sets: int = 1) -> list[tuple[str, list]]:
    """(label, one array per input) for the random, minimum, maximum and zero sets."""
    rng = np.random.default_rng(seed)
    dtypes = [np.dtype(p.dtype) for p in placements]
    sets = [
        (
            f"random{k}",
            [rng.integers(*_range(dt), size=p.shape, endpoint=True).astype(dt) for p, dt in zip(placements, dtypes)],
        )
        for k in range(random_sets)
    ]
    for label, pick in (("min", 0), ("max", 1)):
        sets.append((label, [np.full(p.shape, _range(dt)[pick], dtype=dt) for p, dt in zip(placements, dtypes)]))
    sets.append(("zero", [np.zeros(p.shape, dtype=dt) for p, dt in zip(placements, dtypes)]))
    return sets


def npu_model_differences(payload: bytes, flatbuffer: bytes, accelerator: str, seed: int) -> list[str]:
    """One line per input set whose NPU-model outputs are not those of the TOSA reference
    model (or that the NPU model refused); empty when every output is bit-exact."""
    parsed = EthosUPayload.from_bytes(payload)
    differences = []
    for label, arrays in input_sets(parsed.inputs, seed):
        try:
            got = run_payload(payload, accelerator, arrays)
        except NpuModelError as error:
            return [f"inputs {label}: {error}"]
        want = run_tosa(flatbuffer, arrays)
        if len(want) != len(got):
            return [f"inputs {label}: the TOSA reference model gave {len(want)} outputs, the payload has {len(got)}"]
        for index, (g, w, placement) in enumerate(zip(got, want, parsed.outputs)):
            w = np.asarray(w).astype(np.dtype(placement.dtype), copy=False).reshape(placement.shape)
            differ = np.flatnonzero(g.reshape(-1) != w.reshape(-1))
            if differ.size:
                first = int(differ[0])
                differences.append(
                    f"inputs {label} output {index}: {differ.size} of {g.size} values differ "
                    f"(value {first}: NPU model {g.reshape(-1)[first]}, TOSA reference {w.reshape(-1)[first]})"
                )
    return differences
