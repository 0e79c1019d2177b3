"""aten.copy (an in-place op on a graph input writes its result back with it): the source's
values converted to the destination's dtype and broadcast to its shape (exact).

Every target (FP, INT, Ethos-U55, Ethos-U85): the "copy" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_reference import assert_matches, lower_and_run


def assert_written_back(module, inputs, atol=1e-5, rtol=1e-5):
    """The program returns the updated input and the result, both torch's result."""
    run = lower_and_run(module, inputs)
    (expected,) = run.torch_outputs
    assert len(run.tosa_outputs) == 2
    for got in run.tosa_outputs:
        assert_matches(got, expected, atol, rtol)
    return run


class InPlace(torch.nn.Module):
    def forward(self, x):
        return x.mul_(torch.sigmoid(x))


def test_in_place_silu_on_an_input():
    torch.manual_seed(0)
    run = assert_written_back(InPlace(), (torch.randn(1, 8, 4, 4),))
    assert "SIGMOID" in run.result.report["partitions"][0]["tosa_ops"]


def test_copy_into_an_input_broadcasts_and_converts():
    torch.manual_seed(1)
    fn = Fn(lambda x, y: x.copy_(y * 2))  # float16 into float32, [4] broadcast to [3, 4]
    assert_written_back(fn, (torch.randn(3, 4), torch.randn(4).half()), atol=1e-3, rtol=1e-3)


def test_in_place_activations_quantized():
    torch.manual_seed(2)
    fn = Fn(lambda x: (F.silu(x * 1.0, inplace=True), InPlace()(x)))
    assert_quantized_close(fn, (torch.randn(1, 8, 4, 4),), max_lsb=1.0)
