"""The published-size built-in networks at their deployed inputs on TOSA-1.0+FP: one partition
holding every op, and the reference model's outputs equal torch's."""

import pytest
import torch

from etarm.models import load_model
from etarm.models.registry import FULL_SIZE
from etarm.testing.tosa_reference import assert_close_to_torch

# Bazel shards this file in contiguous slices of three: the order puts one of the slowest
# networks with two quick ones in each slice.
NETWORKS = [
    "resnet50",
    "mobilenet_v3_small",
    "mobilenet_v1_025",
    "gru",
    "wav2letter",
    "conformer_block",
    "lstm",
    "deit_tiny",
    "resnet18",
    "efficientnet_b0",
    "llama",
    "mobilenet_v2",
]


@pytest.mark.parametrize("name", NETWORKS)
def test_network_matches_torch(name):
    module, inputs = load_model(name)
    with torch.no_grad():
        expected = module(*inputs)
    # Float rounding accumulates over tens of layers: the bound follows the output's scale.
    scale = float(expected.abs().max())
    run = assert_close_to_torch(module, inputs, atol=1e-5 * scale, rtol=1e-4, expected=[expected])
    assert run.result.report["partitions"][0]["tosa_ops"], "the partition holds no TOSA operators"


def test_every_full_size_network_is_listed():
    assert sorted(NETWORKS) == sorted(FULL_SIZE)
