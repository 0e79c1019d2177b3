"""The Ethos-U delegate payload: Vela's command stream, constants and I/O layout.

The payload is a stream of named blocks (the "vela_bin_stream" layout ExecuTorch's
Ethos-U runtime delegate reads; docs/payload_formats.md specifies it byte by byte):

    block  = name[16] (ASCII, NUL-padded) | size: u32 LE (unpadded) | 12 zero bytes
             | data[size] | zero padding to the next multiple of 16
    stream = "vela_bin_stream" (empty) | cmd_data | weight_data | scratch_size
             | inputs | outputs | etarm_meta | "vela_end_stream" (empty)

``inputs``/``outputs`` hold ``count: i32`` then per tensor ``shape: i32[4],
elem_size: i32, offset: i32, region: i32`` (the offset is into the region's base
address: region 1 is the scratch arena). ``etarm_meta`` carries what those entries
cannot: the fast-scratch size, and each tensor's dtype, rank, full shape and layout.
"""

from __future__ import annotations

import dataclasses
import math
import struct

from etarm.errors import EtarmError

BLOCK_NAME_BYTES = 16
BLOCK_HEADER = struct.Struct("<16sI12x")
ALIGNMENT = 16
START_BLOCK, END_BLOCK = "vela_bin_stream", "vela_end_stream"
# Every block in its place in the stream; only etarm_meta may be left out (as the C++
# reader, runtime/ethosu/payload.cc, checks it).
BLOCK_ORDER = (START_BLOCK, "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "etarm_meta", END_BLOCK)
OPTIONAL_BLOCKS = frozenset({"etarm_meta"})
VELA_IO = struct.Struct("<4iiii")  # shape[4], elem_size, offset, region
META_VERSION = 1
META_HEADER = struct.Struct("<IIII")  # version, fast_scratch_size, n_inputs, n_outputs
META_IO = struct.Struct("<BBBB6i")  # dtype code, rank, layout, reserved, shape[6]
MAX_META_RANK = 6

# ExecuTorch ScalarType codes of the integer types an NPU reads and writes.
DTYPE_CODES = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "bool": 11}
DTYPE_NAMES = {code: name for name, code in DTYPE_CODES.items()}
DTYPE_SIZES = {"uint8": 1, "int8": 1, "int16": 2, "int32": 4, "bool": 1}
# Layouts of boundary tensors: contiguous in the delegate argument's own dim order
# (PyTorch's, e.g. NCHW) is the only one etarm writes; the code leaves room for more.
LAYOUTS = {0: "contiguous"}


class PayloadError(EtarmError):
    """A payload that is not a well-formed Ethos-U block stream."""


@dataclasses.dataclass(frozen=True)
class TensorPlacement:
    """Where the NPU reads an input or writes an output, and what the tensor is."""

    shape: tuple[int, ...]  # the tensor's full shape (rank 0..6)
    dtype: str  # "int8", "int16", "int32", ...
    offset: int  # bytes from the region's base address
    region: int = 1  # Vela's base-address index: 1 is the scratch arena
    layout: str = "contiguous"

    @property
    def elem_size(self) -> int:
        return DTYPE_SIZES[self.dtype]

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.elem_size

    def shape4(self) -> tuple[int, int, int, int]:
        """The 4-entry shape the upstream I/O entry holds: leading dims folded into the first."""
        dims = (1,) * max(0, 4 - len(self.shape)) + tuple(self.shape)
        return (math.prod(dims[:-3]), *dims[-3:])


@dataclasses.dataclass(frozen=True)
class EthosUPayload:
    cmd_data: bytes
    weight_data: bytes
    scratch_size: int
    fast_scratch_size: int
    inputs: tuple[TensorPlacement, ...]
    outputs: tuple[TensorPlacement, ...]

    def to_bytes(self) -> bytes:
        blocks = [
            (START_BLOCK, b""),
            ("cmd_data", self.cmd_data),
            ("weight_data", self.weight_data),
            ("scratch_size", struct.pack("<I", self.scratch_size)),
            ("inputs", _pack_ios(self.inputs)),
            ("outputs", _pack_ios(self.outputs)),
            ("etarm_meta", _pack_meta(self)),
            (END_BLOCK, b""),
        ]
        return b"".join(_block(name, data) for name, data in blocks)

    @staticmethod
    def from_bytes(data: bytes) -> "EthosUPayload":
        blocks = read_blocks(data)
        for name in ("cmd_data", "weight_data", "scratch_size", "inputs", "outputs"):
            if name not in blocks:
                raise PayloadError(f"Ethos-U payload has no '{name}' block")
        if len(blocks["scratch_size"]) != 4:
            raise PayloadError(f"'scratch_size' block holds {len(blocks['scratch_size'])} bytes, not 4")
        (scratch_size,) = struct.unpack("<I", blocks["scratch_size"])
        inputs = _unpack_ios(blocks["inputs"], "inputs")
        outputs = _unpack_ios(blocks["outputs"], "outputs")
        fast_scratch = 0
        if "etarm_meta" in blocks:
            fast_scratch, inputs, outputs = _unpack_meta(blocks["etarm_meta"], inputs, outputs)
        return EthosUPayload(
            cmd_data=blocks["cmd_data"],
            weight_data=blocks["weight_data"],
            scratch_size=scratch_size,
            fast_scratch_size=fast_scratch,
            inputs=tuple(inputs),
            outputs=tuple(outputs),
        )


def _block(name: str, data: bytes) -> bytes:
    encoded = name.encode("ascii")
    if len(encoded) >= BLOCK_NAME_BYTES:
        raise PayloadError(f"block name '{name}' is longer than {BLOCK_NAME_BYTES - 1} characters")
    padding = -len(data) % ALIGNMENT
    return BLOCK_HEADER.pack(encoded, len(data)) + bytes(data) + b"\0" * padding


def read_blocks(data: bytes) -> dict[str, bytes]:
    """The stream's blocks by name, checking the framing (start/end blocks, sizes, alignment)."""
    data = bytes(data)
    if len(data) % ALIGNMENT:
        raise PayloadError(f"Ethos-U payload is {len(data)} bytes, not a multiple of {ALIGNMENT}")
    blocks: dict[str, bytes] = {}
    names: list[str] = []
    position = 0
    while position < len(data):
        if position + BLOCK_HEADER.size > len(data):
            raise PayloadError(f"truncated block header at byte {position}")
        raw_name, size = BLOCK_HEADER.unpack_from(data, position)
        name = raw_name.split(b"\0", 1)[0].decode("ascii", errors="replace")
        start = position + BLOCK_HEADER.size
        if size > len(data) - start:
            raise PayloadError(f"block '{name}' at byte {position} claims {size} bytes; only {len(data) - start} remain")
        if name in blocks:
            raise PayloadError(f"block '{name}' appears twice")
        blocks[name] = data[start : start + size]
        names.append(name)
        position = start + size + (-size % ALIGNMENT)
        if name == END_BLOCK:
            break
    if not names or names[0] != START_BLOCK:
        raise PayloadError(f"Ethos-U payload does not start with a '{START_BLOCK}' block")
    if names[-1] != END_BLOCK:
        raise PayloadError(f"Ethos-U payload does not end with a '{END_BLOCK}' block")
    if position != len(data):
        raise PayloadError(f"{len(data) - position} bytes follow the '{END_BLOCK}' block")
    unknown = [name for name in names if name not in BLOCK_ORDER]
    if unknown:
        raise PayloadError(f"unknown block '{unknown[0]}' in the Ethos-U payload")
    expected = [name for name in BLOCK_ORDER if name in blocks or name not in OPTIONAL_BLOCKS]
    if names != expected:
        raise PayloadError(f"Ethos-U payload blocks are {names}, expected {expected}")
    return blocks


def _pack_ios(ios) -> bytes:
    return struct.pack("<i", len(ios)) + b"".join(
        VELA_IO.pack(*io.shape4(), io.elem_size, io.offset, io.region) for io in ios
    )


def _unpack_ios(data: bytes, what: str) -> list[TensorPlacement]:
    if len(data) < 4:
        raise PayloadError(f"'{what}' block is too short for its count")
    (count,) = struct.unpack_from("<i", data)
    if count < 0 or len(data) != 4 + count * VELA_IO.size:
        raise PayloadError(f"'{what}' block of {len(data)} bytes does not hold {count} entries")
    ios = []
    for i in range(count):
        *shape, elem_size, offset, region = VELA_IO.unpack_from(data, 4 + i * VELA_IO.size)
        dtype = {1: "int8", 2: "int16", 4: "int32"}.get(elem_size)
        if dtype is None:
            raise PayloadError(f"'{what}' entry {i} has element size {elem_size}")
        ios.append(TensorPlacement(tuple(shape), dtype, offset, region))
    return ios


def _pack_meta(payload: EthosUPayload) -> bytes:
    data = META_HEADER.pack(META_VERSION, payload.fast_scratch_size, len(payload.inputs), len(payload.outputs))
    for io in (*payload.inputs, *payload.outputs):
        if len(io.shape) > MAX_META_RANK:
            raise PayloadError(f"a tensor of rank {len(io.shape)} at the NPU boundary (at most {MAX_META_RANK})")
        layout = next(code for code, name in LAYOUTS.items() if name == io.layout)
        shape = list(io.shape) + [0] * (MAX_META_RANK - len(io.shape))
        data += META_IO.pack(DTYPE_CODES[io.dtype], len(io.shape), layout, 0, *shape)
    return data


def _unpack_meta(data: bytes, inputs, outputs):
    if len(data) < META_HEADER.size:
        raise PayloadError("'etarm_meta' block is too short")
    version, fast_scratch, n_inputs, n_outputs = META_HEADER.unpack_from(data)
    if version != META_VERSION:
        raise PayloadError(f"'etarm_meta' version {version} (this reader knows {META_VERSION})")
    if (n_inputs, n_outputs) != (len(inputs), len(outputs)):
        raise PayloadError("'etarm_meta' and the inputs/outputs blocks disagree on the tensor count")
    if len(data) != META_HEADER.size + (n_inputs + n_outputs) * META_IO.size:
        raise PayloadError("'etarm_meta' block has the wrong size")
    described = []
    for i, io in enumerate([*inputs, *outputs]):
        dtype_code, rank, layout, _, *shape = META_IO.unpack_from(data, META_HEADER.size + i * META_IO.size)
        if dtype_code not in DTYPE_NAMES or layout not in LAYOUTS or rank > MAX_META_RANK:
            raise PayloadError(f"'etarm_meta' entry {i}: dtype {dtype_code}, layout {layout}, rank {rank}")
        full = TensorPlacement(tuple(shape[:rank]), DTYPE_NAMES[dtype_code], io.offset, io.region, LAYOUTS[layout])
        if full.shape4() != io.shape or full.elem_size != io.elem_size:
            raise PayloadError(f"'etarm_meta' entry {i} does not match its inputs/outputs entry")
        described.append(full)
    return fast_scratch, described[: len(inputs)], described[len(inputs) :]
