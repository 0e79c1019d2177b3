"""The published-size built-in networks quantized for ethos-u55-128 and ethos-u85-256: all of each on the NPU (only
the input's quantize and the output's dequantize on CPU, unless listed below with the reason,
and nothing Vela puts back on the CPU), and each partition's command stream run on etarm's NPU
model computes exactly what its TOSA graph computes on the TOSA reference model, bit for bit.
One random input set per network: the extreme inputs (all minimum, maximum, zero) are the
operator tests' (test_op_coverage.py), and each set costs a reference-model run of the whole
network. The recurrent networks are in test_recurrent_int.py.
"""

import zlib

import pytest

from etarm.models import load_model
from etarm.models.registry import FULL_SIZE
from etarm.testing.npu_runs import assert_bit_exact_on_npu_model

TARGETS = ("ethos-u55-128", "ethos-u85-256")
# Bazel shards this file in contiguous slices: each slice mixes slow and quick networks.
NETWORKS = [
    "resnet50",
    "wav2letter",
    "mobilenet_v1_025",
    "deit_tiny",
    "resnet18",
    "conformer_block",
    "mobilenet_v2",
    "efficientnet_b0",
    "llama",
    "mobilenet_v3_small",
]
RECURRENT = {"lstm", "gru"}
# (network, target) -> op -> a part of the reason it stays on the CPU: llama's token ids are
# int64 model inputs, cast on the CPU; U55 has no GATHER for the embedding.
INT64_IDS = {"dim_order_ops._to_dim_order_copy.default": "an input is int64"}
ON_CPU = {
    ("llama", "ethos-u55-128"): {
        "aten.embedding.default": "needs TOSA GATHER/SCATTER, which Ethos-U55/U65 do not run",
        **INT64_IDS,
    },
    ("llama", "ethos-u85-256"): INT64_IDS,
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", NETWORKS)
def test_network_runs_on_the_npu_model_bit_exactly(name, target):
    module, inputs = load_model(name)
    assert_bit_exact_on_npu_model(module, inputs, target, zlib.crc32(name.encode()), ON_CPU.get((name, target)))


def test_every_full_size_network_is_listed():
    assert sorted(set(NETWORKS) | RECURRENT) == sorted(FULL_SIZE)
