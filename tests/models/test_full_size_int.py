"""The published-size built-in networks quantized (PT2E, int8) on TOSA-1.0+INT: one partition
holding every op (only the input's quantize and the output's dequantize stay on CPU), and the
reference model's outputs within a few output steps of the PT2E model in eager.

This separates lowering from quantization: what the PT2E model loses against the float model
is quantization's, what the partition adds on top is bounded here. Bounds are per network,
measured, with about one step of headroom; as in test_models_int.py, the reference model rounds
each int32 accumulator once where the eager model rounds float products, and the look-up-table
ops (softmax's exp, GELU, SiLU, sigmoid) add their own error, which attention layers compound.
The attention networks' larger bounds are amplification, not one op's error: every op stays within
one step, but a norm divides by a row's spread, and DeiT's class token (spread ~3 steps of the
residual) or a llama position of small norm (mean square 2 steps) turns one step of a flipped
rounding into 9-30 steps downstream; the logits read the class token alone.
The recurrent networks are in test_recurrent_int.py.
"""

import pytest

from etarm.models import load_model
from etarm.models.registry import FULL_SIZE
from etarm.testing.quantized_reference import assert_quantized_close

# Bazel shards this file in contiguous slices: each slice mixes slow and quick networks.
NETWORKS = {
    "deit_tiny": 10,
    "wav2letter": 1,
    "mobilenet_v1_025": 1,
    "resnet18": 2,
    "llama": 9,
    "conformer_block": 3,
    "mobilenet_v2": 2,
    "efficientnet_b0": 2,
    "resnet50": 2,
    "mobilenet_v3_small": 2,
}
RECURRENT = {"lstm", "gru"}


@pytest.mark.parametrize("name", NETWORKS)
def test_quantized_network_matches_pt2e_model(name):
    module, inputs = load_model(name)
    assert_quantized_close(module, inputs, max_lsb=NETWORKS[name])


def test_every_full_size_network_is_listed():
    assert sorted(set(NETWORKS) | RECURRENT) == sorted(FULL_SIZE)
