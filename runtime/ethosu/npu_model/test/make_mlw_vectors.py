"""Writes weight-stream test vectors for the NPU model's mlw decoder: random 9-bit weight
sequences of different shapes (dense, sparse with zero runs, few distinct values for
palettes, long runs over several slices, single values) and what Vela's own encoder
(ethosu.mlw_codec.encode, Vela 5.2.0) makes of them.

usage: make_mlw_vectors.py OUT.bin
Format: u32 count, then per vector: u32 n, n x i16 weights, u32 m, m bytes of stream.
"""

import struct
import sys

import numpy as np
from ethosu import mlw_codec


def _vectors():
    rng = np.random.default_rng(2026)
    out = []
    for n in (1, 2, 7, 12, 13, 100, 1000, 5000):
        out.append(rng.integers(-255, 256, size=n))  # dense, full 9-bit range
        out.append(rng.integers(-127, 128, size=n))  # int8 weights
        sparse = rng.integers(-20, 21, size=n)
        sparse[rng.random(n) < 0.7] = 0  # zero runs
        out.append(sparse)
        out.append(rng.choice([-3, 0, 5, 17, -64], size=n))  # a small palette
        out.append(rng.normal(0, 6, size=n).round().clip(-255, 255))  # Golomb-Rice friendly
    out.append(np.zeros(300, dtype=np.int64))
    out.append(np.full(77, -255))
    out.append(np.full(40000, 3))  # more than one 32768-weight slice
    big = rng.integers(-128, 128, size=70000)
    big[rng.random(70000) < 0.5] = 0
    out.append(big)
    return [np.asarray(v, dtype=np.int64) for v in out]


def main(path: str) -> None:
    vectors = _vectors()
    data = struct.pack("<I", len(vectors))
    for v in vectors:
        encoded = bytes(mlw_codec.encode([int(x) for x in v]))
        assert list(mlw_codec.decode(bytearray(encoded))) == [int(x) for x in v]
        data += struct.pack("<I", len(v)) + v.astype("<i2").tobytes() + struct.pack("<I", len(encoded)) + encoded
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
