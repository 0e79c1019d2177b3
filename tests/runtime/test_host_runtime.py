"""etarm.runtime: .pte programs run in-process on the genuine host runtime through etarm's
runner, TOSA partitions on the TOSA reference model, against torch."""

import pathlib

import executorch
import numpy as np
import pytest
import torch

import etarm.runtime
from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.ethosu.payload import EthosUPayload
from etarm.pte import delegate_payloads
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.runtime import Program
from etarm.runtime._libraries import library_directory
from etarm.testing.extension_floats import target_of
from etarm.tosa.host_device import TosaReferenceDevice
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.mapping import tensor_array


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return torch.relu(self.fc(torch.relu(self.conv(x)).flatten(1)))


class TwoOutputs(torch.nn.Module):
    """An int64 output (argmax) beside a float one: TOSA computes int32, the program int64."""

    def forward(self, x):
        return x * 2, torch.argmax(x, dim=1)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return ConvNet().eval(), (torch.randn(1, 3, 8, 8),)


def test_float_program_matches_torch(model):
    module, inputs = model
    program = Program(compile_model(module, inputs, "TOSA-1.0+FP").pte)
    assert program.backends == ["TOSABackend"]
    result = program.run(inputs)
    np.testing.assert_allclose(result.outputs[0], module(*inputs).detach().numpy(), atol=1e-5, rtol=1e-5)
    assert result.seconds > 0
    assert 0 < result.memory["used_bytes"] <= result.memory["arena_bytes"]


def test_quantized_program_matches_the_quantized_model_exactly(model):
    module, inputs = model
    compiled = compile_model(module, inputs, "TOSA-1.0+INT", quantize=True)
    result = Program(compiled.pte).run(inputs)
    np.testing.assert_array_equal(result.outputs[0], compiled.quantized_model(*inputs).detach().numpy())


class Squeeze(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.squeeze_copy.default(x)


class MovedOutput(torch.nn.Module):
    """The quantizer is told to leave the squeeze alone: its float output only moves DQ(x * 2)."""

    def __init__(self):
        super().__init__()
        self.squeeze = Squeeze()

    def forward(self, x):
        return self.squeeze(x * 2)


def test_a_quantized_output_that_only_moves_values_is_dequantized():
    """The partition returns the integers and the CPU dequantizes them (QuantizePassThroughOutputs);
    before, the program took the partition's int8 result for its float output."""
    inputs = (torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(1)),)
    quantizer = TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())
    quantizer.set_module_type(Squeeze, None)
    compiled = compile_model(MovedOutput(), inputs, "TOSA-1.0+INT", quantize=True, quantizer=quantizer)
    assert "aten.squeeze_copy.dims" in compiled.report["partitions"][0]["aten_ops"]
    (output,) = Program(compiled.pte).run(inputs).outputs
    want = compiled.quantized_model(*inputs).detach().numpy()
    assert output.dtype == np.float32
    np.testing.assert_array_equal(output, want)


def test_the_tosa_device_refuses_outputs_of_another_dtype():
    module = torch.nn.Linear(4, 2).eval()
    (payload,) = delegate_payloads(compile_model(module, (torch.randn(1, 4),), "TOSA-1.0+FP").pte)
    session = TosaReferenceDevice().load(payload.data, {})
    x = np.ones((1, 4), np.float32)
    assert session.execute([x, np.zeros((1, 2), np.float32)])[0].dtype == np.float32
    with pytest.raises(
        TypeError, match=r"output 0 of the TOSA graph is float32\[1, 2\], but the program.s tensor for it is int8"
    ):
        session.execute([x, np.zeros((1, 2), np.int8)])
    with pytest.raises(ValueError, match="output 0 of the TOSA graph has shape"):
        session.execute([x, np.zeros((2, 1), np.float32)])


def test_int64_outputs_and_several_outputs():
    x = torch.randn(2, 6)
    result = Program(compile_model(TwoOutputs(), (x,), "TOSA-1.0+FP").pte).run([x])
    doubled, index = result.outputs
    np.testing.assert_allclose(doubled, (x * 2).numpy())
    assert index.dtype == np.int64
    np.testing.assert_array_equal(index, torch.argmax(x, dim=1).numpy())


def test_a_program_without_delegates_runs_on_the_cpu_kernels(model):
    module, inputs = model
    program = Program(compile_model(module, inputs, "TOSA-1.0+FP", delegate=False).pte)
    assert program.backends == []
    result = program.run([inputs[0].numpy()])
    np.testing.assert_allclose(result.outputs[0], module(*inputs).detach().numpy(), atol=1e-5, rtol=1e-5)


def test_inputs_are_checked_against_the_program(model):
    module, inputs = model
    program = Program(compile_model(module, inputs, "TOSA-1.0+FP").pte)
    with pytest.raises(EtarmError, match=r"shape \[1, 3, 9, 9\] is not the program's \[1, 3, 8, 8\]"):
        program.run([torch.randn(1, 3, 9, 9)])
    with pytest.raises(EtarmError, match="takes 1 tensor input"):
        program.run([])
    with pytest.raises(EtarmError, match="dtype complex64 is not the program's float32"):
        program.run([np.ones((1, 3, 8, 8), np.complex64)])
    # A lossless widening is what the user meant: it is converted.
    assert program.run([np.ones((1, 3, 8, 8), np.float64)]).outputs


class Sort(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x).values


def test_an_operator_without_a_host_kernel_is_named():
    with pytest.raises(EtarmError, match=r"no kernel for aten::sort.values \(left on the CPU"):
        Program(compile_model(Sort(), (torch.randn(4),), "TOSA-1.0+FP").pte)


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u65-256", "ethos-u85-256"])
def test_an_ethos_u_program_runs_on_the_npu_model_exactly(model, target):
    module, inputs = model
    compiled = compile_model(module, inputs, target, quantize=True)
    program = Program(compiled.pte)
    assert program.backends == ["EthosUBackend"]
    got = program.run(inputs).outputs[0]
    np.testing.assert_array_equal(got, compiled.quantized_model(*inputs).detach().numpy())


def test_an_ethos_u85_direct_drive_program_runs_on_the_npu_model_exactly(model):
    """--direct_drive: a COP2 stream with the input in region 3 and the output in region 4, which
    the delegate maps and the NPU model runs."""
    module, inputs = model
    compiled = compile_model(module, inputs, "ethos-u85-256", quantize=True, target_options={"direct_drive": True})
    (delegate,) = delegate_payloads(compiled.pte)
    payload = EthosUPayload.from_bytes(delegate.data)
    assert payload.cmd_data[:4] == b"COP2" and payload.inputs[0].region == 3 and payload.outputs[0].region == 4
    got = Program(compiled.pte).run(inputs).outputs[0]
    np.testing.assert_array_equal(got, compiled.quantized_model(*inputs).detach().numpy())


def test_a_corrupt_program_is_an_error_not_a_crash(model):
    module, inputs = model
    pte = bytearray(compile_model(module, inputs, "TOSA-1.0+FP").pte)
    with pytest.raises(EtarmError, match="not a readable .pte"):
        Program(bytes(pte[: len(pte) // 2]))
    pte[8:] = bytes(len(pte) - 8)  # the flatbuffer's root and tables zeroed
    with pytest.raises(EtarmError, match="not a readable .pte"):
        Program(bytes(pte))


def test_a_corrupt_payload_is_an_error_not_a_crash(model):
    module, inputs = model
    pte = compile_model(module, inputs, "TOSA-1.0+FP").pte
    (payload,) = delegate_payloads(pte)
    start = pte.find(payload.data)
    garbled = pte[:start] + bytes(len(payload.data)) + pte[start + len(payload.data) :]
    with pytest.raises(EtarmError, match="load: .*the TOSABackend payload is not a TOSA flatbuffer"):
        Program(garbled)


class FailingDevice(TosaReferenceDevice):
    """Installs itself like the TOSA device; every execution raises."""

    def execute(self, args):
        raise ValueError("the device is on fire")

    def load(self, payload, compile_specs):
        return self


def test_a_device_error_reaches_the_caller(model, monkeypatch):
    module, inputs = model
    pte = compile_model(module, inputs, "TOSA-1.0+FP").pte
    monkeypatch.setitem(etarm.runtime._devices, "TOSABackend", FailingDevice())
    with pytest.raises(EtarmError, match="execute: .*ValueError: the device is on fire"):
        Program(pte).run(inputs)
    monkeypatch.undo()
    assert Program(pte).run(inputs).outputs  # the TOSA device is installed again


def test_the_runtime_libraries_are_found_in_a_namespace_package(tmp_path):
    # pip installs executorch without __init__.py: only __path__ says where it is.
    real = next(folder for folder in executorch.__path__ if (pathlib.Path(folder) / "lib").is_dir())
    assert library_directory([str(tmp_path), real]) == pathlib.Path(real) / "lib"
    with pytest.raises(ImportError, match="no lib/libexecutorch.so"):
        library_directory([str(tmp_path)])


# --- the TOSA FP extensions: bf16 and fp8 programs (the reference model gives their raw bytes) ---


class _ProductOfExtensionFloats(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(x, w).permute(1, 0), x[:, :2]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2], ids=str)
def test_extension_float_program_runs(dtype):
    """bf16/fp8 inputs go in as ml_dtypes arrays of their bits and the outputs come back in the
    program's type (ml_dtypes), equal to the TOSA graph run on the reference model directly."""
    generator = torch.Generator().manual_seed(4)
    inputs = tuple((torch.rand(shape, generator=generator) * 2 - 1).to(dtype) for shape in ((3, 4), (4, 5)))
    compiled = compile_model(_ProductOfExtensionFloats(), inputs, target_of(dtype))
    result = Program(compiled.pte).run(inputs)
    (payload,) = delegate_payloads(compiled.pte)
    arrays = [tensor_array(t) for t in inputs]
    direct = [out.view(array.dtype) for out, array in zip(run_tosa(payload.data, arrays), arrays)]
    program_order = [direct[index] for _partition, index in compiled.report["outputs_from"]]
    for got, want in zip(result.outputs, program_order):
        assert got.dtype == want.dtype == tensor_array(inputs[0]).dtype
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    np.testing.assert_array_equal(result.outputs[1].astype(np.float32), inputs[0][:, :2].float().numpy())
