"""The published-size built-in networks have the published models' parameter counts: an equal
count catches a layer of the wrong width or a missing block."""

import pytest

from etarm.models import load_model

# The reference implementations' counts (stories15M's with its embedding tied to the output).
PUBLISHED_PARAMETERS = {
    "mobilenet_v1_025": 470_072,
    "mobilenet_v2": 3_504_872,
    "mobilenet_v3_small": 2_542_856,
    "resnet18": 11_689_512,
    "resnet50": 25_557_032,
    "efficientnet_b0": 5_288_548,
    "deit_tiny": 5_717_416,
    "llama": 15_191_712,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED_PARAMETERS))
def test_network_has_the_published_parameter_count(name):
    module, _inputs = load_model(name)
    assert sum(p.numel() for p in module.parameters()) == PUBLISHED_PARAMETERS[name]
