"""SequencesAsImages from the compiler's side: quantized conv1d (plain, depthwise with dilation, pointwise), 1-D max
and average pools and the mean over a sequence become the cortex_m image ops of height 1, running NHWC end to end
with no permute or view between them, in int8 and int16 (a16w8), with the PT2E model's values; what it leaves keeps
the 2-D rewrites' reasons."""

from __future__ import annotations

import torch

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.models import load_model
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program

_IMAGE_OPS = {
    "cortex_m.quantized_conv2d.default": 3,
    "cortex_m.quantized_depthwise_conv2d.default": 1,
    "cortex_m.quantized_max_pool2d.default": 1,
    "cortex_m.quantized_avg_pool2d.default": 1,
    "cortex_m.quantized_mean_hw.default": 2,
}


class _Sequence(torch.nn.Module):
    """Every 1-D op the pass rewrites, one after the other, then two means (one keeping its dim) and a mean over
    channels, which no kernel takes."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(6, 12, 5, stride=2, padding=2)
        self.depthwise = torch.nn.Conv1d(12, 12, 3, padding=2, dilation=2, groups=12)
        self.pointwise = torch.nn.Conv1d(12, 16, 1)
        self.last = torch.nn.Conv1d(16, 8, 3, padding=1, bias=False)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = torch.nn.functional.relu6(self.depthwise(y))
        y = torch.nn.functional.max_pool1d(y, 2)
        y = torch.relu(self.pointwise(y))
        y = torch.nn.functional.avg_pool1d(y, 3, stride=2, padding=1, count_include_pad=False)
        y = self.last(y)
        return y.mean(dim=-1), y.mean(dim=2, keepdim=True), y.mean(dim=1)


def _rewritten(quantizer):
    torch.manual_seed(5)
    model, inputs = _Sequence().eval(), (torch.randn(2, 6, 40),)
    quantized = quantize_model(model, inputs, quantizer)
    return quantized, inputs, CortexMPassManager(edge_program(quantized, inputs)).transform()


def _names(program) -> list[str]:
    return [str(n.target) for n in program.graph.nodes if n.op == "call_function"]


def _check(quantizer, dtype):
    quantized, inputs, program = _rewritten(quantizer)
    for op, count in _IMAGE_OPS.items():
        nodes = calls(program, op)
        assert len(nodes) == count, op
        assert all(n.meta["val"].dtype == dtype for n in nodes)
    names = _names(program)
    assert not [n for n in names if n.split(".")[1] in ("convolution", "max_pool2d_with_indices", "avg_pool2d")]
    # NHWC from the first convolution to the means: one permute in, one back for the mean over channels (a portable
    # op), none between the image ops.
    assert sum("cortex_m.transpose" in n for n in names) == 2
    (channel_mean,) = calls(program, "aten.mean.dim")
    assert (
        channel_mean.meta["cortex_m_reason"] == "only the mean over H and W of a 4-D NCHW tensor has a cortex_m kernel"
    )
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        assert got.shape == expected.shape
        step = float(torch.diff(expected.unique()).min())  # the output's quantization step
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def test_int8_sequence_ops_run_as_image_kernels_with_the_pt2e_models_values():
    _check(CortexMQuantizer(), torch.int8)


def test_int16_sequence_ops_run_as_image_kernels_with_the_pt2e_models_values():
    _check(CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config()), torch.int16)


def test_audio_1d_leaves_only_its_boundary_quantize_and_dequantize_in_fp32():
    model, inputs = load_model("audio_1d")
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    ops = cpu_operators(result.pte)
    fp32 = [op for op in ops if not op.startswith("cortex_m::") and "quantize" not in op and "view_copy" not in op]
    assert fp32 == [], fp32
