"""Builds reference cases for the NPU model: a model compiled by etarm for an Ethos-U
target, and for every Ethos-U partition its payload plus input sets and the outputs the
TOSA reference model computes for them on that partition's .tosa.

usage: make_case.py TARGET MODEL[:a16w8]=OUT.case [...]

One process builds several cases (importing torch and etarm costs more than a small
compile). MODEL is a single-operator model of op_models.py or a built-in network name. The input sets
are seeded random values over the whole range of each input's type (indices within the rows
they index), then all-minimum, all-maximum and all-zero. ":a16w8" quantizes with int16 activations and int8 weights
instead of the target's default int8. Format of OUT.case (little-endian u32 counts and sizes):
    "NPUCASE1", str target, u32 partitions,
    per partition: bytes payload, u32 sets,
        per set: str label, u32 inputs, bytes per input, u32 outputs, bytes per output
where str and bytes are a u32 length followed by that many bytes.
"""

from __future__ import annotations

import glob
import os
import struct
import sys
import tempfile
import zlib

import numpy as np

RANDOM_SETS = 3


def _load_model(name: str):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from op_models import op_model

    found = op_model(name)
    if found is not None:
        return found
    from etarm.models.registry import BUILTIN

    import etarm.models.networks  # noqa: F401  (registers the networks)
    import etarm.models.zoo  # noqa: F401

    if name not in BUILTIN:
        sys.exit(f"make_case: no model called {name!r}")
    return BUILTIN[name]()


def _bytes(b: bytes) -> bytes:
    return struct.pack("<I", len(b)) + b


def _quantizer(target: str, scheme: str):
    """None (the target's default int8 quantizer) or the a16w8 one: int16 activations."""
    if scheme == "":
        return None
    from etarm.quantizer import EthosUQuantizer, get_symmetric_a16w8_quantization_config

    if scheme != "a16w8":
        sys.exit(f"make_case: unknown quantization {scheme!r}")
    return EthosUQuantizer(target).set_global(get_symmetric_a16w8_quantization_config())


def make_case(model_spec: str, target: str, out_path: str) -> None:
    from etarm.compiler import compile_model
    from etarm.ethosu.payload import EthosUPayload
    from etarm.testing.npu_model_reference import index_ranges, input_sets
    from etarm.tosa.reference_model import run_tosa

    model_name, _, scheme = model_spec.partition(":")
    model, inputs = _load_model(model_name)
    with tempfile.TemporaryDirectory(prefix="npu_case_") as work:
        compile_model(model, inputs, target, quantize=True, intermediates_dir=work, quantizer=_quantizer(target, scheme))
        payload_files = sorted(glob.glob(os.path.join(work, "partition_*.ethosu.bin")))
        if not payload_files:
            sys.exit(f"make_case: {model_name} on {target} has no Ethos-U partition")
        out = b"NPUCASE1" + _bytes(target.encode()) + struct.pack("<I", len(payload_files))
        for index, payload_file in enumerate(payload_files):
            stem = payload_file[: -len(".ethosu.bin")]
            with open(payload_file, "rb") as f:
                data = f.read()
            with open(stem + ".tosa", "rb") as f:
                flatbuffer = f.read()
            payload = EthosUPayload.from_bytes(data)
            seed = zlib.crc32(f"{model_spec}/{target}/{index}".encode())
            # Inputs a GATHER/SCATTER reads as indices stay in range: the reference model aborts on others.
            sets = input_sets(payload.inputs, seed, random_sets=RANDOM_SETS, ranges=index_ranges(flatbuffer))
            out += _bytes(data) + struct.pack("<I", len(sets))
            for label, arrays in sets:
                results = run_tosa(flatbuffer, arrays)
                if len(results) != len(payload.outputs):
                    sys.exit(f"make_case: the reference model gave {len(results)} outputs, the payload has "
                             f"{len(payload.outputs)}")
                out += _bytes(label.encode()) + struct.pack("<I", len(arrays))
                for a in arrays:
                    out += _bytes(np.ascontiguousarray(a).tobytes())
                out += struct.pack("<I", len(results))
                for r, placement in zip(results, payload.outputs):
                    r = np.ascontiguousarray(np.asarray(r).astype(np.dtype(placement.dtype), copy=False))
                    if r.nbytes != placement.nbytes:
                        sys.exit(f"make_case: reference output of {r.nbytes} bytes for a {placement.nbytes}-byte "
                                 "NPU output")
                    out += _bytes(r.tobytes())
    with open(out_path, "wb") as f:
        f.write(out)


def main(argv: list[str]) -> None:
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        sys.exit(__doc__)
    target = argv[0]
    for spec in argv[1:]:
        model_name, out_path = spec.split("=", 1)
        make_case(model_name, target, out_path)


if __name__ == "__main__":
    main(sys.argv[1:])
