"""compile_model takes what torch.export takes and gives it back unchanged: example inputs
of any kind (numbers, bools, lists, None beside tensors), and in-place models whose
calibration would otherwise write into the caller's tensors and buffers."""

import numpy as np
import pytest
import torch

from etarm.compiler import compile_model
from etarm.runtime import Program

TARGETS = [("TOSA-1.0+FP", False), ("TOSA-1.0+INT", True), ("ethos-u55-128", True), ("ethos-u85-256", True)]


class InPlaceInput(torch.nn.Module):
    def forward(self, x):
        return x.add_(1.0) * 2


class CountingBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(4))
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.seen.add_(x.sum(0))
        return self.fc(x) + self.seen


class BatchNormNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def snapshot(module):
    return {name: value.clone() for name, value in module.state_dict().items()}


@pytest.mark.parametrize("target, quantize", TARGETS)
@pytest.mark.parametrize(
    "make, shape", [(InPlaceInput, (2, 4)), (CountingBuffer, (2, 4)), (BatchNormNet, (1, 3, 6, 6))]
)
def test_the_model_its_inputs_and_the_calibration_data_are_the_same_bits_after(make, shape, target, quantize):
    torch.manual_seed(0)
    model = make().train()
    x = torch.randn(shape)
    calibration = [(torch.randn(shape),), (torch.randn(shape),)]
    before = snapshot(model)
    x_before, calibration_before = x.clone(), [(t.clone(),) for (t,) in calibration]
    compile_model(model, (x,), target, quantize=quantize, calibration_data=calibration if quantize else None)
    assert torch.equal(x, x_before)
    assert all(torch.equal(a, b) for (a,), (b,) in zip(calibration, calibration_before))
    after = snapshot(model)
    assert all(torch.equal(after[name], before[name]) for name in before)
    assert model.training


class MixedInputs(torch.nn.Module):
    def forward(self, x, scale, add_pair, pair, nothing, nested):
        y = x * scale + 1
        if add_pair:
            y = y + pair[0] * pair[1]
        if nothing is None:
            y = y - nested[0][1]
        return y


def mixed_inputs():
    torch.manual_seed(1)
    return (torch.randn(3), 2.5, True, [torch.randn(3), torch.randn(3)], None, ((4, torch.randn(3)),))


@pytest.mark.parametrize("target, quantize", TARGETS)
def test_non_tensor_example_inputs_compile_and_are_reported_as_constants(target, quantize):
    result = compile_model(MixedInputs(), mixed_inputs(), target, quantize=quantize)
    inputs = result.report["inputs"]
    assert inputs[0] == {"dtype": "float32", "shape": [3]}
    assert inputs[1:3] == [{"constant": 2.5}, {"constant": True}]
    assert inputs[3] == [{"dtype": "float32", "shape": [3]}] * 2
    assert inputs[4] == {"constant": None}
    assert inputs[5] == [[{"constant": 4}, {"dtype": "float32", "shape": [3]}]]
    assert result.report["partitions"]


def test_a_program_with_constant_inputs_runs_on_its_tensor_inputs():
    inputs = mixed_inputs()
    program = Program(compile_model(MixedInputs(), inputs, "TOSA-1.0+FP").pte)
    x, _, _, pair, _, ((_, z),) = inputs
    result = program.run([x, pair[0], pair[1], z])
    np.testing.assert_allclose(result.outputs[0], MixedInputs()(*inputs).numpy(), rtol=1e-6, atol=1e-6)


NUMBER_FIRST = {
    "2 + x": lambda x: 2 + x,
    "2 * x": lambda x: 2 * x,
    "2 - x": lambda x: 2 - x,
    "2 / x": lambda x: 2 / x,
    "torch.add(2, x)": lambda x: torch.add(2, x),
}


class NumberFirst(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar_tensor", "vector"])
@pytest.mark.parametrize("name", NUMBER_FIRST)
def test_arithmetic_with_the_number_first_compiles_and_runs(name, shape):
    module, x = NumberFirst(NUMBER_FIRST[name]), torch.rand(shape) + 0.5
    program = Program(compile_model(module, (x,), "TOSA-1.0+FP").pte)
    np.testing.assert_allclose(program.run([x]).outputs[0], module(x).numpy(), rtol=1e-6)
    result = compile_model(module, (x,), "TOSA-1.0+INT", quantize=True)
    assert result.report["partitions"]
