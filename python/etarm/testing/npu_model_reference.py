"""Runs an Ethos-U partition's command stream on the NPU model (etarm.npu_model) and its
.tosa on the TOSA reference model with the same inputs, and says where they differ: the
partition-level proof that a Vela stream computes what its TOSA graph specifies, bit for bit.

The inputs: seeded random values over the whole range of each input's type, then all minimum,
all maximum and all zero (the extremes reach the saturating and rounding corners). An input
set for which the TOSA reference model reports UNPREDICTABLE (e.g. an int32 addition that
overflows, a shift by more than 31) has no result the specification defines: it is not
compared, but the NPU model must still run it without an error.
"""

from __future__ import annotations

import numpy as np
import tosa_reference_model

from etarm.ethosu.backend import build_payload
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.payload import EthosUPayload, TensorPlacement
from etarm.npu_model import NpuModelError, run_payload
from etarm.testing.tosa_graphs import compile_with_vela
from etarm.tosa_ir.graph import TosaGraph
from etarm.tosa_ir.mapping import numpy_dtype

# The key of differences that concern the whole partition rather than one output.
WHOLE_PARTITION = None


def _range(dtype: np.dtype) -> tuple[int, int]:
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def input_sets(
    placements: tuple[TensorPlacement, ...], seed: int, random_sets: int = 1, extremes: bool = True
) -> list[tuple[str, list]]:
    """(label, one array per input) for the random sets, then (``extremes``) the minimum, maximum
    and zero sets."""
    rng = np.random.default_rng(seed)
    dtypes = [np.dtype(p.dtype) for p in placements]
    sets = [
        (
            f"random{k}",
            [rng.integers(*_range(dt), size=p.shape, endpoint=True).astype(dt) for p, dt in zip(placements, dtypes)],
        )
        for k in range(random_sets)
    ]
    if not extremes:
        return sets
    for label, pick in (("min", 0), ("max", 1)):
        sets.append((label, [np.full(p.shape, _range(dt)[pick], dtype=dt) for p, dt in zip(placements, dtypes)]))
    sets.append(("zero", [np.zeros(p.shape, dtype=dt) for p, dt in zip(placements, dtypes)]))
    return sets


def npu_model_differences(
    payload: bytes, flatbuffer: bytes, accelerator: str, seed: int, extremes: bool = True
) -> dict:
    """Where the NPU model's outputs are not those of the TOSA reference model: output index ->
    one line per input set that differs there, and WHOLE_PARTITION -> what concerns every
    output (the NPU model refused the stream, the reference model rejected the graph, no input
    set had a defined result). Empty when every output is bit-exact. ``extremes``: also the
    all-minimum, all-maximum and all-zero inputs after the random ones."""
    parsed = EthosUPayload.from_bytes(payload)
    differences: dict = {}
    compared = 0
    for label, arrays in input_sets(parsed.inputs, seed, extremes=extremes):
        try:
            got = run_payload(payload, accelerator, arrays)
        except NpuModelError as error:
            return {WHOLE_PARTITION: [f"inputs {label}: {error}"]}
        want, status = tosa_reference_model.run(flatbuffer, arrays)
        if status == tosa_reference_model.GraphStatus.TOSA_UNPREDICTABLE:
            continue
        if status != tosa_reference_model.GraphStatus.TOSA_VALID:
            return {WHOLE_PARTITION: [f"inputs {label}: the TOSA reference model rejected the graph ({status})"]}
        compared += 1
        for index, (g, w, placement) in enumerate(zip(got, want, parsed.outputs, strict=True)):
            w = np.asarray(w).astype(np.dtype(placement.dtype), copy=False).reshape(placement.shape)
            differ = np.flatnonzero(g.reshape(-1) != w.reshape(-1))
            if differ.size:
                first = int(differ[0])
                differences.setdefault(index, []).append(
                    f"inputs {label}: {differ.size} of {g.size} values differ "
                    f"(value {first}: NPU model {g.reshape(-1)[first]}, TOSA reference {w.reshape(-1)[first]})"
                )
    if compared == 0:
        differences[WHOLE_PARTITION] = ["no input set has a result the TOSA specification defines"]
    return differences


def partition_differences(partition: dict, accelerator: str, seed: int, extremes: bool = True) -> dict:
    """npu_model_differences of a report's partition, from the payload and .tosa files a compile
    with an intermediates directory keeps (its ``payload_file`` and ``tosa_file``)."""
    with open(partition["payload_file"], "rb") as payload, open(partition["tosa_file"], "rb") as tosa:
        return npu_model_differences(payload.read(), tosa.read(), accelerator, seed, extremes)


def graph_payload(graph: TosaGraph, target: str, directory) -> bytes:
    """The EthosUBackend payload of the TOSA graph ``graph`` compiled by Vela for ``target``."""
    vela = compile_with_vela(graph, EthosUCompileSpec(target), directory)

    def entries(names):
        return [
            {
                "name": name,
                "shape": list(graph.tensors[name].shape),
                "dtype": np.dtype(numpy_dtype(graph.tensors[name].dtype)).name,
            }
            for name in names
        ]

    return build_payload(vela, entries(graph.inputs), entries(graph.outputs)).to_bytes()
