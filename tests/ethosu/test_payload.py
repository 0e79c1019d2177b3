"""The Ethos-U payload (vela_bin_stream blocks): byte layout, round trip and corrupt input."""

import struct

import pytest

from etarm.ethosu.payload import EthosUPayload, PayloadError, TensorPlacement, read_blocks


def _payload(**changes) -> EthosUPayload:
    fields = dict(
        cmd_data=b"COP1" + bytes(range(9)),
        weight_data=bytes(range(40)) + b"\0\0",  # trailing zeros must survive
        scratch_size=6144,
        fast_scratch_size=393216,
        inputs=(
            TensorPlacement((1, 8, 16, 16), "int8", offset=4096),
            TensorPlacement((2, 3, 4, 5, 6), "int16", offset=0),
        ),
        outputs=(TensorPlacement((10,), "int32", offset=128, region=1),),
    )
    fields.update(changes)
    return EthosUPayload(**fields)


def test_round_trip():
    payload = _payload()
    data = payload.to_bytes()
    assert len(data) % 16 == 0
    assert EthosUPayload.from_bytes(data) == payload


def test_block_layout_is_the_vela_bin_stream_framing():
    data = _payload().to_bytes()
    names = []
    position = 0
    while position < len(data):
        name, size = struct.unpack_from("<16sI", data, position)
        assert data[position + 20 : position + 32] == bytes(12)  # header padding
        names.append(name.rstrip(b"\0").decode())
        if names[-1] == "weight_data":
            assert data[position + 32 : position + 32 + size] == bytes(range(40)) + b"\0\0"
        if names[-1] == "scratch_size":
            assert size == 4 and struct.unpack_from("<I", data, position + 32) == (6144,)
        if names[-1] == "inputs":
            count, *first = struct.unpack_from("<i7i", data, position + 32)
            assert count == 2 and size == 4 + 2 * 28
            assert first == [1, 8, 16, 16, 1, 4096, 1]  # shape[4], elem_size, offset, region
            second = struct.unpack_from("<7i", data, position + 32 + 4 + 28)
            assert second == (6, 4, 5, 6, 2, 0, 1)  # rank 5: leading dims folded into the first
        position += 32 + size + (-size % 16)
    assert names == [
        "vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "etarm_meta", "vela_end_stream",
    ]  # fmt: skip


def test_upstream_blocks_alone_still_parse():
    """A stream without etarm's meta block (as other producers write it) reads with defaults."""
    blocks = read_blocks(_payload().to_bytes())
    data = b""
    for name in ("vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "vela_end_stream"):
        body = blocks[name]
        data += struct.pack("<16sI12x", name.encode(), len(body)) + body + bytes(-len(body) % 16)
    parsed = EthosUPayload.from_bytes(data)
    assert parsed.fast_scratch_size == 0
    assert parsed.inputs[0] == TensorPlacement((1, 8, 16, 16), "int8", 4096)
    assert parsed.inputs[1].shape == (6, 4, 5, 6)


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda d: d[:-32], "does not end with a 'vela_end_stream'"),
        (lambda d: d[:-16], "truncated block header"),
        (lambda d: d[:-1], "not a multiple of 16"),
        (lambda d: b"x" * 16 + d[16:], "does not start with a 'vela_bin_stream'"),
        (lambda d: d + bytes(16), "bytes follow the 'vela_end_stream'"),
        (lambda d: d[:48] + struct.pack("<I", 1 << 30) + d[52:], "claims 1073741824 bytes"),
    ],
)
def test_corrupt_streams_are_refused(corrupt, message):
    with pytest.raises(PayloadError, match=message):
        EthosUPayload.from_bytes(corrupt(_payload().to_bytes()))


def test_inconsistent_blocks_are_refused():
    blocks = read_blocks(_payload().to_bytes())

    def stream(**replaced):
        data = b""
        for name, body in blocks.items():
            body = replaced.get(name, body)
            data += struct.pack("<16sI12x", name.encode(), len(body)) + body + bytes(-len(body) % 16)
        return data

    with pytest.raises(PayloadError, match="'inputs' block of 32 bytes does not hold 2 entries"):
        EthosUPayload.from_bytes(stream(inputs=blocks["inputs"][:32]))
    # Blocks out of order, missing or unknown: refused, as the C++ reader refuses them.
    blocks = {"weight_data" if name == "cmd_data" else "cmd_data" if name == "weight_data" else name: body for name, body in blocks.items()}
    with pytest.raises(PayloadError, match="expected"):
        EthosUPayload.from_bytes(stream())
    blocks = read_blocks(_payload().to_bytes())
    blocks = {"cmd_data2" if name == "cmd_data" else name: body for name, body in blocks.items()}
    with pytest.raises(PayloadError, match="unknown block 'cmd_data2'"):
        EthosUPayload.from_bytes(stream())
    blocks = read_blocks(_payload().to_bytes())
    with pytest.raises(PayloadError, match="'scratch_size' block holds 8 bytes"):
        EthosUPayload.from_bytes(stream(scratch_size=bytes(8)))
    outputs = bytearray(blocks["outputs"])
    outputs[4 + 16 : 4 + 20] = struct.pack("<i", 2)  # int32 output now claims 2-byte elements
    with pytest.raises(PayloadError, match="does not match its inputs/outputs entry"):
        EthosUPayload.from_bytes(stream(outputs=bytes(outputs)))


def test_placement_sizes():
    placement = TensorPlacement((2, 3, 4), "int16", offset=0)
    assert placement.nbytes == 48 and placement.shape4() == (1, 2, 3, 4)
    assert TensorPlacement((), "int8", 0).shape4() == (1, 1, 1, 1)
