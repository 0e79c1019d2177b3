"""The built-in lstm and gru networks (2 x 128 units) quantized: one partition on TOSA INT within one output
step of the PT2E model on the reference model, and for ethos-u55-128 and ethos-u85-256 all on the NPU with
Vela's command stream bit-exact on etarm's NPU model against the TOSA reference model (as
test_full_size_ethosu.py checks the other published-size networks). Over 8 of their 49 frames: the layers
and weights are the built-ins', the unrolled steps only repeat (compile time grows with them)."""

import zlib

import pytest
import torch

from etarm.models.registry import BUILTIN
from etarm.testing.npu_runs import assert_bit_exact_on_npu_model
from etarm.testing.quantized_reference import assert_quantized_close

FRAMES = 8


def _network(name):
    model, (x,) = BUILTIN[name]()
    return model, (x[:, :FRAMES].contiguous(),)


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_quantized_recurrent_network_matches_pt2e_on_tosa(name):
    model, inputs = _network(name)
    assert_quantized_close(model, inputs, max_lsb=1.0, calibration_data=[inputs, (torch.randn_like(inputs[0]),)])


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_quantized_recurrent_network_runs_on_the_npu_model_bit_exactly(name, target):
    assert_bit_exact_on_npu_model(*_network(name), target, zlib.crc32(name.encode()))
