"""The built-in networks on TOSA-1.0+FP: one partition, every op on it, torch's numbers.

Whole networks accumulate float rounding over several layers (and BatchNorm folding
changes the order of operations), so the tolerance is 1e-4 rather than the per-op 1e-5.
"""

import pytest

from etarm.models import load_model
from etarm.testing.tosa_reference import assert_close_to_torch

NETWORKS = ["mlp", "cnn_bn", "inverted_residual", "transformer_block", "encoder_layer", "audio_1d", "ds_cnn", "unet", "embedding_ids"]


@pytest.mark.parametrize("name", NETWORKS)
def test_network_matches_torch(name):
    module, inputs = load_model(name)
    run = assert_close_to_torch(module, inputs, atol=1e-4, rtol=1e-4)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert ops, "the partition holds no TOSA operators"


def test_cnn_batch_norms_fold_into_convolutions():
    """Inference BatchNorm after a conv costs no TOSA operator of its own."""
    module, inputs = load_model("cnn_bn")
    ops = assert_close_to_torch(module, inputs, atol=1e-4, rtol=1e-4).result.report["partitions"][0]["tosa_ops"]
    features = ops[: len(ops) - ops[::-1].index("CLAMP")]  # up to the last conv's activation
    assert features == ["TRANSPOSE", "CONV2D", "CLAMP", "MAX_POOL2D", "CONV2D", "CLAMP"], ops


def test_inverted_residual_keeps_layout_transposes_at_the_edges():
    module, inputs = load_model("inverted_residual")
    ops = assert_close_to_torch(module, inputs, atol=1e-4, rtol=1e-4).result.report["partitions"][0]["tosa_ops"]
    assert ops.count("TRANSPOSE") <= 2, ops
    assert ops.count("DEPTHWISE_CONV2D") == 1
