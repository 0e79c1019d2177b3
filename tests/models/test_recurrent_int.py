"""The built-in lstm and gru networks (2 x 128 units) quantized: one partition on TOSA INT within one output
step of the PT2E model on the reference model, and all on the NPU. Over 8 of their 49 frames: the layers and
weights are the built-ins', the unrolled steps only repeat (compile time grows with them)."""

import pytest
import torch

from etarm.models.registry import BUILTIN
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close

FRAMES = 8


def _network(name):
    model, (x,) = BUILTIN[name]()
    return model, (x[:, :FRAMES].contiguous(),)


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_quantized_recurrent_network_matches_pt2e_on_tosa(name):
    model, inputs = _network(name)
    assert_quantized_close(model, inputs, max_lsb=1.0, calibration_data=[inputs, (torch.randn_like(inputs[0]),)])


@pytest.mark.parametrize("name, target", [("lstm", "ethos-u55-128"), ("gru", "ethos-u85-256")])
def test_quantized_recurrent_network_runs_on_the_npu(name, target):
    assert_all_on_npu(*_network(name), target)
