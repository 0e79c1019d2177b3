"""etarm.npu_model: an Ethos-U55 partition's payload run from Python on the NPU model gives
the TOSA reference model's outputs on its .tosa, and bad payloads or inputs give clear errors."""

from __future__ import annotations

import functools
import struct
import tempfile

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.ethosu.payload import EthosUPayload, PayloadError
from etarm.npu_model import NpuModelError, run_payload
from etarm.testing.npu_model_reference import index_ranges, npu_model_differences
from etarm.tosa.reference_model import run_tosa

TARGET = "ethos-u55-128"


class ConvAdd(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x, y):
        return torch.relu(self.conv(x) + y)


@functools.lru_cache(maxsize=None)
def _partition() -> tuple[bytes, bytes]:
    """The single Ethos-U partition of ConvAdd: (payload, .tosa flatbuffer)."""
    torch.manual_seed(0)
    inputs = (torch.randn(1, 3, 8, 8), torch.randn(1, 8, 8, 8))
    with tempfile.TemporaryDirectory() as work:
        report = compile_model(ConvAdd().eval(), inputs, TARGET, quantize=True, intermediates_dir=work).report
        assert len(report["partitions"]) == 1
        partition = report["partitions"][0]
        with open(partition["payload_file"], "rb") as payload, open(partition["tosa_file"], "rb") as tosa:
            return payload.read(), tosa.read()


def _random_inputs(payload: bytes, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    placements = EthosUPayload.from_bytes(payload).inputs
    return [rng.integers(-128, 127, size=p.shape, endpoint=True).astype(p.dtype) for p in placements]


def test_outputs_equal_the_tosa_reference_model():
    payload, flatbuffer = _partition()
    inputs = _random_inputs(payload)
    got = run_payload(payload, TARGET, inputs)
    want = run_tosa(flatbuffer, inputs)
    placements = EthosUPayload.from_bytes(payload).outputs
    assert [(g.dtype.name, g.shape) for g in got] == [(p.dtype, p.shape) for p in placements]
    assert len(got) == len(want) == 1
    np.testing.assert_array_equal(got[0], np.asarray(want[0]).reshape(got[0].shape))
    assert np.unique(got[0]).size > 10  # not a constant output


def test_random_and_extreme_inputs_are_bit_exact():
    payload, flatbuffer = _partition()
    assert npu_model_differences(payload, flatbuffer, TARGET, seed=7) == {}


def _with_cmd_data(payload: bytes, cmd_data: bytes) -> bytes:
    parsed = EthosUPayload.from_bytes(payload)
    return EthosUPayload(**{**parsed.__dict__, "cmd_data": cmd_data}).to_bytes()


def test_a_corrupt_command_stream_names_the_command_and_offset():
    payload, _ = _partition()
    cmd_data = bytearray(EthosUPayload.from_bytes(payload).cmd_data)
    last = len(cmd_data) - 4
    while struct.unpack_from("<I", cmd_data, last)[0] == 0:  # the last command word, before any padding
        last -= 4
    struct.pack_into("<I", cmd_data, last, 0x03FF)  # a short command with an opcode the command set lacks
    with pytest.raises(NpuModelError, match=rf"at byte {last}\b") as error:
        run_payload(_with_cmd_data(payload, bytes(cmd_data)), TARGET, _random_inputs(payload))
    assert error.value.fault == "malformed stream"


def _command_offsets(cmd_data: bytes) -> list[int]:
    """Byte offsets of the commands in a COP1 driver payload: after the fourcc, the config
    action (tag, CONFIG, ID) and NOPs comes the command-stream action, then the commands; a
    long command (bit 14) has a payload word."""
    words = struct.unpack_from(f"<{len(cmd_data) // 4}I", cmd_data)
    i = 1
    while words[i] & 0xFF != 0x02:
        i += 3 if words[i] & 0xFF == 0x01 else 1
    count = (words[i] >> 16) | ((words[i] >> 8) & 0xFF) << 16
    offsets, at, end = [], i + 1, i + 1 + count
    while at < end:
        offsets.append(4 * at)
        at += 2 if words[at] & (1 << 14) else 1
    return offsets


def test_a_missing_wait_is_a_hazard():
    """Each NPU_OP_DMA_WAIT replaced by NPU_OP_PMU_MASK (no effect on the model): the command it
    protected reads what a DMA may still be writing, and the error names both commands."""
    payload, _ = _partition()
    cmd_data = EthosUPayload.from_bytes(payload).cmd_data
    waits = [o for o in _command_offsets(cmd_data) if struct.unpack_from("<I", cmd_data, o)[0] & 0xFFFF == 17]
    assert waits, "ConvAdd's stream on ethos-u55-128 streams its weights with a DMA_WAIT before their use"
    run_payload(payload, TARGET, _random_inputs(payload))  # unmodified: no hazard
    for wait in waits:
        broken = bytearray(cmd_data)
        struct.pack_into("<I", broken, wait, 19)  # NPU_OP_PMU_MASK 0
        with pytest.raises(NpuModelError, match=r"at byte \d+: .* of NPU_OP_DMA_START at byte \d+") as error:
            run_payload(_with_cmd_data(payload, bytes(broken)), TARGET, _random_inputs(payload))
        assert error.value.fault == "hazard"
        assert "no NPU_OP_DMA_WAIT" in str(error.value)


def test_a_stream_for_another_npu_is_refused():
    payload, _ = _partition()
    with pytest.raises(NpuModelError) as error:
        run_payload(payload, "ethos-u55-256", _random_inputs(payload))
    assert error.value.fault == "configuration mismatch"


def test_bad_arguments_are_clear_errors():
    payload, _ = _partition()
    inputs = _random_inputs(payload)
    with pytest.raises(ValueError, match="no configuration 'ethos-u99-1'"):
        run_payload(payload, "ethos-u99-1", inputs)
    with pytest.raises(PayloadError, match="2 inputs, 1 were given"):
        run_payload(payload, TARGET, inputs[:1])
    with pytest.raises(PayloadError, match="input 0 is int16"):
        run_payload(payload, TARGET, [inputs[0].astype(np.int16), inputs[1]])
    with pytest.raises(PayloadError):
        run_payload(payload[:-16], TARGET, inputs)


class IndexSelect(torch.nn.Module):
    def forward(self, x, indices):
        return torch.index_select(x * 2, 1, indices)


def test_gather_indices_are_drawn_in_range_and_bit_exact_on_u85():
    """An input GATHER reads as indices gets values in [0, K) only (TOSA requires them in range;
    the reference model aborts on one outside), and the U85 gather DMA equals TOSA's GATHER."""
    inputs = (torch.randn(4, 10), torch.tensor([9, 0, 3], dtype=torch.int32))
    with tempfile.TemporaryDirectory() as work:
        partition = compile_model(
            IndexSelect().eval(), inputs, "ethos-u85-256", quantize=True, intermediates_dir=work
        ).report["partitions"][0]
        with open(partition["payload_file"], "rb") as payload, open(partition["tosa_file"], "rb") as tosa:
            payload, flatbuffer = payload.read(), tosa.read()
    assert index_ranges(flatbuffer) == {1: (0, 9)}
    assert npu_model_differences(payload, flatbuffer, "ethos-u85-256", seed=3) == {}
