"""Builds the VGF delegate's end-to-end test cases (a build action; runtime/vgf/test/BUILD.bazel).

For each case: the model is compiled by etarm for a TOSA target (one partition holding
every op), the partition's TOSA flatbuffer is converted to a .vgf by the ML SDK
model-converter, random inputs are drawn with a fixed seed and the TOSA reference model
computes the expected outputs from the same flatbuffer. Written per case:
  <name>.vgf  the converter's output (the VgfBackend payload)
  <name>.io   the inputs and expected outputs, in the TOSA graph's order (format below)

.io format (little endian): b"VGFIO001", u32 input count, u32 output count, then per
tensor: u32 dtype code (DTYPE_CODES), u32 rank, rank x i64 dimensions, the raw elements.

Usage: make_vgf_cases.py OUT_DIR CASE...
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile

import model_converter
import numpy as np
import torch

from etarm.compiler import compile_model
from etarm.models import load_model
from etarm.tosa.reference_model import run_tosa

# The dtype codes the C++ test reads (runtime/vgf/test/test_cases.h).
DTYPE_CODES = {np.dtype(np.int8): 1, np.dtype(np.int16): 2, np.dtype(np.int32): 3, np.dtype(np.float32): 6}
SEED = 20261126


class ConvRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class TwoOutputs(torch.nn.Module):
    """Inputs and outputs of different shapes, in an order the converter must keep."""

    def forward(self, x, y):
        return y * 2.0, x - 1.0


class IntegerArithmetic(torch.nn.Module):
    """int64 in torch, int32 in TOSA: the delegate narrows inputs and widens outputs."""

    def forward(self, x, y):
        return x * 3 - y


class Scalars(torch.nn.Module):
    """A rank-0 input and a rank-0 output: compiled for -t vgf, whose graph holds them as
    shape [1] (RankZeroAsShapeOne); the delegate binds rank-0 arguments to them."""

    def forward(self, x, s):
        return (x * s).sum(), x - s


def _local_models():
    torch.manual_seed(0)
    ids = torch.randint(-1000, 1000, (2, 3, 4), dtype=torch.int64)
    return {
        "conv_relu": (ConvRelu().eval(), (torch.randn(1, 3, 12, 12),)),
        "two_outputs": (TwoOutputs().eval(), (torch.randn(1, 4, 6, 6), torch.randn(2, 5))),
        "integer_arithmetic": (IntegerArithmetic().eval(), (ids, ids.flip(0))),
        "scalars": (Scalars().eval(), (torch.randn(2, 3), torch.tensor(0.5))),
    }


# name -> (model, target, quantize)
CASES = {
    "sub_fp": ("sub", "TOSA-1.0+FP", False),
    "sub_int": ("sub", "TOSA-1.0+INT", True),
    "conv_relu_fp": ("conv_relu", "TOSA-1.0+FP", False),
    "conv_relu_int": ("conv_relu", "TOSA-1.0+INT", True),
    "mlp_fp": ("mlp", "TOSA-1.0+FP", False),
    "mlp_int": ("mlp", "TOSA-1.0+INT", True),
    "ds_cnn_fp": ("ds_cnn", "TOSA-1.0+FP", False),
    "ds_cnn_int": ("ds_cnn", "TOSA-1.0+INT", True),
    "two_outputs_fp": ("two_outputs", "TOSA-1.0+FP", False),
    "integer_arithmetic_fp": ("integer_arithmetic", "TOSA-1.0+FP", False),
    # -t vgf: the .tosa -i keeps is the graph after the VGF backend's rewrites.
    "scalars_vgf": ("scalars", "vgf", False),
}


def converter_path() -> str:
    return os.path.join(model_converter.__path__[0], "binaries", "bin", "model-converter")


def random_input(spec: dict, rng: np.random.Generator) -> np.ndarray:
    dtype = np.dtype(spec["dtype"])
    shape = tuple(spec["shape"])
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.int64:
        # An int32 tensor in TOSA; values whose results stay in range.
        return rng.integers(-(1 << 20), 1 << 20, size=shape, dtype=np.int32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def tensor_record(array: np.ndarray) -> bytes:
    array = np.array(array, order="C")  # np.ascontiguousarray would make a rank-0 array rank 1
    code = DTYPE_CODES[array.dtype]
    header = struct.pack("<II", code, array.ndim) + struct.pack(f"<{array.ndim}q", *array.shape)
    return header + array.astype(array.dtype.newbyteorder("<")).tobytes()


def make_case(name: str, out_dir: str, rng: np.random.Generator) -> None:
    model_name, target, quantize = CASES[name]
    local = _local_models()
    model, inputs = local[model_name] if model_name in local else load_model(model_name)
    with tempfile.TemporaryDirectory() as work:
        result = compile_model(model, inputs, target, quantize=quantize, intermediates_dir=work)
        partitions = result.report["partitions"]
        if len(partitions) != 1 or (result.report["cpu_ops"] and not quantize):
            raise SystemExit(f"{name}: expected one partition holding every op, got {result.report}")
        tosa_path = os.path.join(work, "partition_0.tosa")
        vgf_path = os.path.join(out_dir, name + ".vgf")
        command = [converter_path(), "-i", tosa_path, "-o", vgf_path]
        converted = subprocess.run(command, capture_output=True, text=True)
        if converted.returncode != 0:
            raise SystemExit(f"{name}: {' '.join(command)} failed:\n{converted.stdout}{converted.stderr}")
        with open(tosa_path, "rb") as f:
            flatbuffer = f.read()
    arrays = [random_input(spec, rng) for spec in partitions[0]["inputs"]]
    expected = run_tosa(flatbuffer, arrays)
    with open(os.path.join(out_dir, name + ".io"), "wb") as f:
        f.write(b"VGFIO001" + struct.pack("<II", len(arrays), len(expected)))
        for array in [*arrays, *expected]:
            f.write(tensor_record(array))


def main(argv: list[str]) -> None:
    out_dir, names = argv[0], argv[1:]
    for name in names:
        # One generator per case: a case's data does not depend on which others are built.
        make_case(name, out_dir, np.random.default_rng([SEED, sum(name.encode())]))


if __name__ == "__main__":
    main(sys.argv[1:])
