"""Ethos-U + Cortex-M: quantized ops the NPU leaves on the CPU run as cortex_m (CMSIS-NN) kernels
instead of float portable ones (the Ethos-U pipeline's CPU-part stage), the report says which
kernel runs each CPU op, --no_cortex_m_fallback keeps the float ones, and the program runs on the
host runtime with the delegate on the NPU model and the cortex_m kernel beside it."""

import pathlib
import runpy

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.op_names import op_name
from etarm.pte import cpu_operators
from etarm.runtime import Program

TARGET = "ethos-u55-128"
REASON = "kept on the CPU by the user"


class ThreeConvolutions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.head = torch.nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.head(torch.relu(self.depthwise(torch.relu(self.stem(x)))))


def keep_depthwise_on_cpu(node, _tosa_spec):
    """The peer's notebook case: the NPU does not take the depthwise convolution."""
    depthwise = op_name(node.target) == "aten.convolution.default" and node.args[-1] != 1
    return REASON if depthwise else None


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return ThreeConvolutions().eval(), (torch.randn(1, 3, 12, 12),)


def _compile(model, **options):
    module, inputs = model
    return compile_model(
        module, inputs, TARGET, quantize=True, target_options=options, additional_checks=[keep_depthwise_on_cpu]
    )


def test_a_convolution_the_npu_rejects_runs_as_a_cortex_m_kernel(model):
    result = _compile(model)
    operators = set(cpu_operators(result.pte))
    assert "cortex_m::quantized_depthwise_conv2d.out" in operators
    assert (
        not {"aten::convolution.out", "aten::relu.out", "quantized_decomposed::dequantize_per_channel.out"} & operators
    )
    assert len(result.report["partitions"]) == 2  # the stem and the head, on the NPU
    kernels = {entry["op"]: entry["kernel"] for entry in result.report["cpu_ops"] if entry["reason"] == REASON}
    assert kernels == {"aten.convolution.default": "cortex_m"}
    assert "cpu_kernels" in result.report["timings_s"]


def test_a_linear_too_wide_for_the_npu_runs_as_a_cortex_m_kernel():
    """65540 input features: more channels than the NPU reads. It stays on the CPU with that
    reason (instead of failing in Vela) and runs as cortex_m::quantized_linear."""
    model_file = runpy.run_path(str(pathlib.Path(__file__).parent / "models" / "wide_linear.py"))
    result = compile_model(model_file["ModelUnderTest"], model_file["ModelInputs"], TARGET, quantize=True)
    operators = set(cpu_operators(result.pte))
    assert "cortex_m::quantized_linear.out" in operators and "aten::addmm.out" not in operators
    assert len(result.report["partitions"]) == 1  # the head
    assert any(entry["kernel"] == "cortex_m" and "65536" in entry["reason"] for entry in result.report["cpu_ops"])


def test_no_cortex_m_fallback_keeps_the_float_kernels(model):
    result = _compile(model, no_cortex_m_fallback=True)
    operators = set(cpu_operators(result.pte))
    assert {"aten::convolution.out", "quantized_decomposed::dequantize_per_channel.out"} <= operators
    assert not any(op.startswith("cortex_m::") for op in operators)
    assert all("kernel" not in entry for entry in result.report["cpu_ops"])


def test_npu_model_and_cortex_m_kernel_run_the_program_within_one_step(model):
    """The .pte on the host runtime: both NPU partitions on etarm's NPU model, the depthwise
    convolution on the cortex_m kernel (CMSIS-NN's plain C path), against the PT2E model."""
    module, inputs = model
    result = _compile(model)
    (got,) = Program(result.pte).run(list(inputs)).outputs
    with torch.no_grad():
        want = result.quantized_model(*inputs).numpy()
    partition, index = result.report["outputs_from"][0]
    step = result.report["partitions"][partition]["outputs"][index]["scale"]
    assert np.abs(np.asarray(got) - want).max() <= step * 1.01
