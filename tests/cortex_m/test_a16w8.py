"""a16w8 (int16 activations, int8 weights) for Cortex-M from the compiler's side: each op with a CMSIS-NN s16
kernel becomes its cortex_m op on int16 tensors, and the rewritten program stays within one output step of the
PT2E model (the linear's own checks are in test_quantized_linear.py)."""

from __future__ import annotations

import pytest
import torch

from etarm.compiler import quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.op_names import op_name
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program


class _AddMul(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * y


class _Extrema(torch.nn.Module):
    def forward(self, x, y):
        return torch.maximum(x, y) + torch.minimum(x, y)


class _Convolutions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=8)
        self.pointwise = torch.nn.Conv2d(16, 4, 1)

    def forward(self, x):
        return self.pointwise(torch.nn.functional.relu6(self.depthwise(torch.relu(self.conv(x)))))


class _Pools(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 6, 3, padding=1)

    def forward(self, x):
        pooled = torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 2)
        return torch.nn.functional.avg_pool2d(pooled, 3, stride=1, padding=1, count_include_pad=False)


class _GroupedConvolution(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 6, 3, padding=1, groups=2)

    def forward(self, x):
        return torch.relu(self.conv(x))


class _PadMeanClamp(torch.nn.Module):
    """A pad, a global average pool and an activation the quantizer leaves alone (after a mean)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3)

    def forward(self, x):
        x = self.conv(torch.nn.functional.pad(x, (1, 2, 0, 1)))
        return torch.nn.functional.relu6(x.mean(dim=(2, 3)))


class _Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


# (model, inputs, the cortex_m ops it must become); seeded: the models' weights and inputs are the same every run.
torch.manual_seed(0)
_CASES = {
    "add_mul": (_AddMul(), (torch.randn(2, 3, 8), torch.randn(8)), ["quantized_add", "quantized_mul"]),
    "extrema": (
        _Extrema(),
        (torch.randn(2, 3, 8), torch.randn(8)),
        ["quantized_maximum", "quantized_minimum", "quantized_add"],
    ),
    "convolutions": (
        _Convolutions(),
        (torch.randn(1, 3, 9, 8),),
        ["quantized_conv2d", "quantized_depthwise_conv2d", "quantized_conv2d"],
    ),
    "softmax": (_Softmax(), (torch.randn(3, 8) * 3,), ["quantized_softmax_int16"]),
    "grouped_convolution": (_GroupedConvolution(), (torch.randn(1, 4, 7, 6),), ["quantized_grouped_conv2d"]),
    "pad_mean_clamp": (
        _PadMeanClamp(),
        (torch.randn(2, 3, 7, 6) * 2,),
        ["quantized_conv2d", "quantized_mean_hw", "quantized_clamp"],
    ),
    "pools": (
        _Pools(),
        (torch.randn(2, 4, 10, 8),),
        ["quantized_conv2d", "quantized_max_pool2d", "quantized_avg_pool2d"],
    ),
}


def _a16w8(model, inputs):
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())
    quantized = quantize_model(model.eval(), inputs, quantizer)
    return quantized, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _output_scale(program) -> float:
    (output,) = [n for n in program.graph.nodes if n.op == "output"][0].args[0]
    return float(output.args[1])  # the dequantize of the model's result


@pytest.mark.parametrize("case", sorted(_CASES))
def test_a16w8_ops_are_int16_cortex_m_ops_within_one_step(case):
    torch.manual_seed(0)
    model, inputs, expected_ops = _CASES[case]
    quantized, program = _a16w8(model, inputs)
    cortex_m = [n for n in calls(program) if op_name(n.target).startswith("cortex_m.quantized")]
    assert [op_name(n.target).split(".")[1] for n in cortex_m] == expected_ops
    assert all(n.meta["val"].dtype == torch.int16 for n in cortex_m)
    left = [op_name(n.target) for n in calls(program) if n not in cortex_m]
    assert not [name for name in left if "aten" in name], left
    got, expected = program.module()(*inputs), quantized(*inputs)
    torch.testing.assert_close(got, expected, atol=_output_scale(program) * 1.01, rtol=0)
