"""Runs an Ethos-U partition's command stream on the NPU model (etarm.npu_model) and its
.tosa on the TOSA reference model with the same inputs, and says where they differ: the
partition-level proof that a Vela stream computes what its TOSA graph specifies, bit for bit.

The inputs: seeded random values over the whole range of each input's type, then all minimum,
all maximum and all zero (the extremes reach the saturating and rounding corners). An input
set for which the TOSA reference model reports UNPREDICTABLE (e.g. an int32 addition that
overflows, a shift by more than 31) has no result the specification defines: it is not
compared, but the NPU model must still run it without an error. An input that GATHER or
SCATTER reads as indices takes values in [0, K) only, K the values' row count, and its minimum
and maximum sets are 0 and K - 1: TOSA requires indices in range, and the reference model
aborts the process on one outside it.
"""

from __future__ import annotations

import numpy as np
import tosa_reference_model
from tosa.Op import Op
from tosa.TosaGraph import TosaGraph as TosaFlatbuffer

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


# Operators that pass index values through unchanged: op -> the inputs they come from (SELECT:
# a negative-index wrap, SELECT(x < 0, x + K, x), keeps x where it is in range).
_INDEX_PASS_THROUGH = {
    Op.RESHAPE: (0,),
    Op.TILE: (0,),
    Op.CAST: (0,),
    Op.IDENTITY: (0,),
    Op.TRANSPOSE: (0,),
    Op.SLICE: (0,),
    Op.SELECT: (2,),
}


def index_ranges(flatbuffer: bytes) -> dict[int, tuple[int, int]]:
    """Graph input position -> (0, K - 1) for every input a GATHER or SCATTER reads as indices
    unchanged (through _INDEX_PASS_THROUGH operators), K the smallest row count of the values
    they index. (Indices computed from an input, e.g. a table look-up's, are in range by
    construction.)"""
    block = TosaFlatbuffer.GetRootAs(flatbuffer, 0).Regions(0).Blocks(0)
    shapes = {}
    for i in range(block.TensorsLength()):
        tensor = block.Tensors(i)
        shapes[tensor.Name().decode()] = [int(d) for d in tensor.ShapeAsNumpy()] if tensor.ShapeLength() else []
    producers = {}
    indexed = []  # (index tensor, K)
    for i in range(block.OperatorsLength()):
        op = block.Operators(i)
        inputs = [op.Inputs(j).decode() for j in range(op.InputsLength())]
        passed = [inputs[k] for k in _INDEX_PASS_THROUGH.get(op.Op(), ())]
        for j in range(op.OutputsLength()):
            producers[op.Outputs(j).decode()] = passed
        if op.Op() in (Op.GATHER, Op.SCATTER):
            values = inputs[0]
            indexed.append((inputs[1], shapes[values][1]))
    positions = {block.Inputs(i).decode(): i for i in range(block.InputsLength())}
    ranges: dict[int, tuple[int, int]] = {}
    for tensor, rows in indexed:
        pending, seen = [tensor], set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in positions:
                low, high = ranges.get(positions[name], (0, rows - 1))
                ranges[positions[name]] = (low, min(high, rows - 1))
            pending.extend(producers.get(name, []))
    return ranges


def input_sets(
    placements: tuple[TensorPlacement, ...],
    seed: int,
    random_sets: int = 1,
    extremes: bool = True,
    ranges: dict[int, tuple[int, int]] | None = None,
) -> list[tuple[str, list]]:
    """(label, one array per input) for the random sets, then (``extremes``) the minimum, maximum
    and zero sets. ``ranges``: input position -> (lowest, highest) value instead of its type's."""
    rng = np.random.default_rng(seed)
    dtypes = [np.dtype(p.dtype) for p in placements]
    bounds = [(ranges or {}).get(i, _range(dt)) for i, dt in enumerate(dtypes)]
    sets = [
        (
            f"random{k}",
            [
                rng.integers(*bound, size=p.shape, endpoint=True).astype(dt)
                for p, dt, bound in zip(placements, dtypes, bounds)
            ],
        )
        for k in range(random_sets)
    ]
    if not extremes:
        return sets
    for label, pick in (("min", 0), ("max", 1)):
        sets.append(
            (label, [np.full(p.shape, bound[pick], dtype=dt) for p, dt, bound in zip(placements, dtypes, bounds)])
        )
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
    for label, arrays in input_sets(parsed.inputs, seed, extremes=extremes, ranges=index_ranges(flatbuffer)):
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
