"""GlusAsSigmoidProducts: on Ethos-U55/U65 (no GATHER) an int8 glu is written as a * sigmoid(b) before
annotation, so a gated unit quantizes whole and runs on the NPU instead of splitting the graph."""

import pytest
import torch

from etarm.ethosu.quantizer import EthosUQuantizer
from etarm.passes.glus_as_sigmoid_products import glus_as_sigmoid_products
from etarm.quantizer import get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config
from etarm.testing import annotation_rewrites
from etarm.testing.cpu_fallback import Fn
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close


def rewritten(module, inputs, quantizer=None):
    return annotation_rewrites.rewritten(glus_as_sigmoid_products, module, inputs, quantizer)


@pytest.mark.parametrize("dim, shape", [(1, (2, 6, 3)), (-1, (4, 8)), (0, (2, 5))])
def test_glu_becomes_the_first_half_times_the_sigmoid_of_the_second(dim, shape):
    x = torch.randn(shape)
    count, ops, model = rewritten(Fn(lambda a: torch.nn.functional.glu(a, dim)), (x,))
    assert count == 1 and "aten.glu.default" not in ops
    assert ops.count("aten.slice.Tensor") == 2 and ops.index("aten.sigmoid.default") < ops.index("aten.mul.Tensor")
    assert torch.equal(model(x), torch.nn.functional.glu(x, dim))


def test_only_int8_glus_are_rewritten():
    x = (torch.randn(2, 6),)
    int8 = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())
    int16 = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_a16w8_quantization_config())
    assert rewritten(Fn(lambda a: torch.nn.functional.glu(a, 1)), x, int8)[0] == 1
    assert rewritten(Fn(lambda a: torch.nn.functional.glu(a, 1)), x, int16)[0] == 0  # no int16 TABLE there either
    assert rewritten(Fn(lambda a: torch.nn.functional.glu(a, 1)), x, EthosUQuantizer("ethos-u55-128"))[0] == 0


class GatedPointwise(torch.nn.Module):
    """A Conformer convolution module's start: pointwise conv to twice the channels, GLU, depthwise conv."""

    def __init__(self):
        super().__init__()
        self.expand = torch.nn.Conv1d(8, 16, 1)
        self.glu = torch.nn.GLU(dim=1)
        self.depthwise = torch.nn.Conv1d(8, 8, 3, padding=1, groups=8)

    def forward(self, x):
        return self.depthwise(self.glu(self.expand(x)))


def test_a_gated_unit_runs_whole_on_ethos_u55():
    torch.manual_seed(0)
    assert_all_on_npu(GatedPointwise().eval(), (torch.randn(1, 8, 12),), "ethos-u55-128")


def test_the_written_out_glu_matches_the_quantized_model_on_tosa():
    torch.manual_seed(1)
    quantizer = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())
    assert_quantized_close(GatedPointwise().eval(), (torch.randn(1, 8, 12),), quantizer=quantizer)
