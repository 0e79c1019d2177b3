"""Writes a damaged copy of a bundled program (.bpte), for the runner's negative tests.

usage: corrupt_bpte.py MODE IN.bpte OUT.bpte
  truncate   keep the first half of the file
  oversize   make the first input tensor's data claim 2 GiB (the flatbuffer points past its end)
  expected   add 1.0 to the first expected output value of forward's first test case (the file
             stays well formed: the runner must report FAIL)

Walks the flatbuffer itself (bundled_program_schema.fbs: BundledProgram.method_test_suites is
slot 1, BundledMethodTestSuite.{method_name, test_cases} slots 0 and 1,
BundledMethodTestCase.{inputs, expected_outputs} slots 0 and 1, Value.val slot 1, Tensor.data
slot 2).
"""

import struct
import sys


def _u32(data: bytes, at: int) -> int:
    return struct.unpack_from("<I", data, at)[0]


def _deref(data: bytes, at: int) -> int:
    """Where the offset stored at ``at`` points."""
    return at + _u32(data, at)


def _field(data: bytes, table: int, slot: int) -> int:
    """Position of field ``slot`` of the table at ``table`` (it must be present)."""
    vtable = table - struct.unpack_from("<i", data, table)[0]
    offset = struct.unpack_from("<H", data, vtable + 4 + 2 * slot)[0]
    if offset == 0:
        raise SystemExit(f"field {slot} of the table at {table} is absent")
    return table + offset


def _element(data: bytes, vector: int, index: int) -> int:
    """Table ``index`` of the vector of tables at ``vector``."""
    return _deref(data, vector + 4 + 4 * index)


def _forward_tensor_data(data: bytes, values_slot: int) -> int:
    """The data vector of the first value (a tensor) in forward's first test case's inputs
    (values_slot 0) or expected outputs (1)."""
    suites = _deref(data, _field(data, _u32(data, 0), 1))
    for i in range(_u32(data, suites)):
        suite = _element(data, suites, i)
        name = _deref(data, _field(data, suite, 0))
        if data[name + 4 : name + 4 + _u32(data, name)] == b"forward":
            test_case = _element(data, _deref(data, _field(data, suite, 1)), 0)
            value = _element(data, _deref(data, _field(data, test_case, values_slot)), 0)
            tensor = _deref(data, _field(data, value, 1))
            return _deref(data, _field(data, tensor, 2))
    raise SystemExit("no test suite for forward")


def corrupt(mode: str, data: bytes) -> bytes:
    if data[4:8] != b"BP08":
        raise SystemExit("not a bundled program: no BP08 identifier at byte 4")
    out = bytearray(data)
    if mode == "truncate":
        return bytes(out[: len(out) // 2])
    if mode == "oversize":
        struct.pack_into("<I", out, _forward_tensor_data(data, 0), 1 << 31)
        return bytes(out)
    if mode == "expected":
        first = _forward_tensor_data(data, 1) + 4
        struct.pack_into("<f", out, first, struct.unpack_from("<f", data, first)[0] + 1.0)
        return bytes(out)
    raise SystemExit(f"unknown mode {mode!r}")


def main(mode: str, in_path: str, out_path: str) -> None:
    with open(in_path, "rb") as f:
        data = f.read()
    with open(out_path, "wb") as f:
        f.write(corrupt(mode, data))


if __name__ == "__main__":
    main(*sys.argv[1:])
