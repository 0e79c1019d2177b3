"""compile_model(bundleio=True): the .bpte holds the program, the example inputs, the outputs the
program should compute and the tolerance, and ExecuTorch's own bundled-program tools accept it."""

import pytest
import torch
from executorch.devtools.bundled_program.serialize import deserialize_from_flatbuffer_to_bundled_program
from executorch.exir.tensor import get_scalar_type
from executorch.extension.pybindings import portable_lib

from etarm.bundleio import FLOAT_ATOL, FLOAT_RTOL, TOLERANCE_METHOD
from etarm.compiler import compile_model
from etarm.errors import EtarmError


class ScaledMlp(torch.nn.Module):
    """Outputs up to ~20 in magnitude: the float atol scales with them."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 12)
        self.fc2 = torch.nn.Linear(12, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))) * 20


class RowsOfTwice(torch.nn.Module):
    """Returns a view (rows 1.. of a larger result)."""

    def forward(self, x):
        return (x * 2)[1:]


def _inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 8),)


def _suites(bpte: bytes) -> dict:
    bundle = deserialize_from_flatbuffer_to_bundled_program(bpte)
    return {suite.method_name: suite for suite in bundle.method_test_suites}


def _tensor(value) -> torch.Tensor:
    tensor = value.val
    return torch.frombuffer(bytearray(tensor.data), dtype=get_scalar_type(tensor.scalar_type)).reshape(tensor.sizes)


def test_float_bundle_holds_the_program_the_inputs_torch_outputs_and_the_tolerance():
    model, inputs = ScaledMlp().eval(), _inputs()
    result = compile_model(model, inputs, "TOSA-1.0+FP", bundleio=True)
    bundle = deserialize_from_flatbuffer_to_bundled_program(result.bpte)
    assert result.bpte[4:8] == b"BP08"
    assert bundle.program == result.pte

    suites = _suites(result.bpte)
    assert sorted(suites) == [TOLERANCE_METHOD, "forward"]
    (case,) = suites["forward"].test_cases
    (bundled_input,) = case.inputs
    (expected,) = case.expected_outputs
    assert torch.equal(_tensor(bundled_input), inputs[0])
    with torch.no_grad():
        reference = model(*inputs)
    assert torch.equal(_tensor(expected), reference)

    largest = reference.abs().max().item()
    assert largest > 1
    info = result.report["bundle"]
    assert info["atol"] == pytest.approx(FLOAT_ATOL * largest) and info["rtol"] == FLOAT_RTOL
    assert info["expected_outputs_from"] == "float model" and info["bpte_bytes"] == len(result.bpte)
    (tolerance_case,) = suites[TOLERANCE_METHOD].test_cases
    assert [v.val.double_val for v in tolerance_case.inputs] == pytest.approx([info["atol"], info["rtol"]])
    assert tolerance_case.expected_outputs == []


def test_quantized_bundle_expects_the_quantized_models_outputs_within_one_output_step():
    model, inputs = ScaledMlp().eval(), _inputs()
    result = compile_model(model, inputs, "TOSA-1.0+INT", quantize=True, bundleio=True)
    (case,) = _suites(result.bpte)["forward"].test_cases
    with torch.no_grad():
        quantized_outputs = result.quantized_model(*inputs)
    assert torch.equal(_tensor(case.expected_outputs[0]), quantized_outputs)

    # The step is the scale of the partition output the program's output dequantizes.
    ((partition_index, output_index),) = result.report["outputs_from"]
    step = result.report["partitions"][partition_index]["outputs"][output_index]["scale"]
    info = result.report["bundle"]
    assert info["output_quantization_steps"] == pytest.approx([step])
    float_allowance = FLOAT_ATOL * max(1.0, quantized_outputs.abs().max().item())
    assert info["atol"] == pytest.approx(step + float_allowance)
    assert info["expected_outputs_from"] == "quantized model"


def test_executorch_runs_and_verifies_the_bundle_despite_the_tolerance_suite():
    model, inputs = ScaledMlp().eval(), _inputs()
    # No delegate: ExecuTorch's portable pybindings have no TOSA backend.
    result = compile_model(model, inputs, "TOSA-1.0+FP", delegate=False, bundleio=True)
    info = result.report["bundle"]
    bundled = portable_lib._load_bundled_program_from_buffer(result.bpte)
    bundled.verify_result_with_bundled_expected_output("forward", 0, info["rtol"], info["atol"])


def test_views_are_bundled_as_their_own_values():
    base = torch.arange(24, dtype=torch.float32).reshape(6, 4)
    view_input = base[2:5]  # a view into a larger storage
    result = compile_model(RowsOfTwice(), (view_input,), "TOSA-1.0+FP", bundleio=True)
    (case,) = _suites(result.bpte)["forward"].test_cases
    assert torch.equal(_tensor(case.inputs[0]), view_input)
    assert torch.equal(_tensor(case.expected_outputs[0]), (view_input * 2)[1:])


class ScaleAndSubtract(torch.nn.Module):
    def forward(self, x, factor, pair):
        return x * factor + pair[0] - pair[1]


class IgnoresSecondInput(torch.nn.Module):
    def forward(self, x, unused=None):
        return x + 1


def test_numbers_and_nested_tuples_are_bundled_as_the_programs_inputs():
    inputs = (torch.randn(2, 3), 3, (torch.randn(2, 3), torch.randn(2, 3)))
    result = compile_model(ScaleAndSubtract(), inputs, "TOSA-1.0+FP", delegate=False, bundleio=True)
    info = result.report["bundle"]
    bundled = portable_lib._load_bundled_program_from_buffer(result.bpte)
    bundled.verify_result_with_bundled_expected_output("forward", 0, info["rtol"], info["atol"])


def test_an_input_a_bundle_cannot_hold_is_refused_in_one_line():
    with pytest.raises(EtarmError, match=r"^--bundleio: .*None"):
        compile_model(IgnoresSecondInput(), (torch.randn(2), None), "TOSA-1.0+FP", bundleio=True)
