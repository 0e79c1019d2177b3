"""DivisionsAsReciprocalProducts: on Ethos-U55/U65 (no INTDIV) an int8 division by a tensor is
a product with the divisor's reciprocal, each quantized on its own; the rest stays whole."""

import torch

from etarm.ethosu.quantizer import EthosUQuantizer
from etarm.passes.divisions_as_reciprocal_products import divisions_as_reciprocal_products
from etarm.quantizer import get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config
from etarm.testing import annotation_rewrites
from etarm.testing.cpu_fallback import Fn


class ByBuffer(torch.nn.Module):
    def __init__(self, values):
        super().__init__()
        self.register_buffer("divisor", values)

    def forward(self, x):
        return x / self.divisor


def rewritten(module, inputs, quantizer=None):
    return annotation_rewrites.rewritten(divisions_as_reciprocal_products, module, inputs, quantizer)


def test_division_by_a_tensor_becomes_a_reciprocal_product():
    x, y = torch.randn(2, 3, 4), torch.rand(3, 1) + 0.5
    count, ops, model = rewritten(Fn(lambda a, b: a / b), (x, y))
    assert count == 1 and "aten.div.Tensor" not in ops
    assert ops.index("aten.reciprocal.default") < ops.index("aten.mul.Tensor")
    assert torch.allclose(model(x, y), x / y, rtol=1e-6)


def test_divisions_by_numbers_constants_and_with_rounding_stay_whole():
    x = torch.randn(2, 5)
    assert rewritten(Fn(lambda a: a / 3.0), (x,))[0] == 0
    assert rewritten(ByBuffer(torch.tensor(4.0)), (x,))[0] == 0  # one RESCALE
    assert rewritten(Fn(lambda a, b: torch.div(a, b, rounding_mode="floor")), (x, x + 3))[0] == 0
    assert rewritten(Fn(lambda a, b: a / b), (x.int(), x.int() + 7))[0] == 0  # an integer divisor


def test_a_constant_tensor_of_several_divisors_is_rewritten():
    assert rewritten(ByBuffer(torch.tensor([1.0, 2.0, -4.0, 0.5, 3.0])), (torch.randn(2, 5),))[0] == 1


def test_only_int8_divisions_are_rewritten():
    x, y = torch.randn(2, 5), torch.rand(2, 5) + 0.5
    int8 = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())
    int16 = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_a16w8_quantization_config())
    assert rewritten(Fn(lambda a, b: a / b), (x, y), int8)[0] == 1
    assert rewritten(Fn(lambda a, b: a / b), (x, y), int16)[0] == 0  # int16 reciprocals need exact look-ups
    assert rewritten(Fn(lambda a, b: a / b), (x, y), EthosUQuantizer("ethos-u55-128"))[0] == 0  # not quantized
