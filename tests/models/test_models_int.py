"""The built-in networks quantized (PT2E, int8) on TOSA-1.0+INT, against the fake-quantized model.

Both sides work on the same integer grid, but where the reference model rounds an
int32 accumulator once, torch's fake-quantized eager model rounds float products, so
single intermediate values may differ by one step; later layers can carry that to a
few output steps. Bounds are per network, measured, with headroom of about 1 LSB.
Table-based ops (GELU, softmax exp) add their own documented error.
"""

import pytest

from etarm.models import load_model
from etarm.testing.quantized_reference import assert_quantized_close

NETWORKS = {
    "mlp": 1,
    "cnn_bn": 2,
    "inverted_residual": 3,
    "audio_1d": 2,
    "ds_cnn": 3,
    "unet": 2,
    "embedding_ids": 1,
    "transformer_block": 4,
    "encoder_layer": 2,
}


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_quantized_network_matches_fake_quantized_model(name):
    module, inputs = load_model(name)
    assert_quantized_close(module, inputs, max_lsb=NETWORKS[name])


def test_a16w8_cnn_on_int16_extension():
    """int16 activations, int8 weights: the finer grid keeps the error within a few int16 steps."""
    module, inputs = load_model("cnn_bn")
    assert_quantized_close(module, inputs, target="TOSA-1.0+INT+int16", max_lsb=4)
