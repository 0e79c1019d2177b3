"""The ExecuTorch Arm backend's documented Python flows, with only the imports changed to etarm's.

Each test is written the way that backend's documentation and examples write it: no etarm
helper, no extra import (etarm's modules must bring whatever the flow needs, such as the
quantized out-variant kernels to_executorch asks for). The .pte each flow writes is then
checked: the expected delegate, and for the TOSA targets its payload run on the TOSA
reference model against the torch model.
"""

import numpy as np
import pytest
import torch
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.extension.export_util.utils import save_pte_program
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from etarm.ethosu import EthosUCompileSpec, EthosUPartitioner
from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
from etarm.passes.convert_int64_output_ops_to_int32 import ConvertInt64OutputOpsToInt32Pass
from etarm.passes.insert_int32_casts_after_int64_placeholders import InsertInt32CastsAfterInt64PlaceholdersPass
from etarm.quantizer import EthosUQuantizer, TOSAQuantizer, VgfQuantizer, get_symmetric_quantization_config
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.partitioner import TOSAPartitioner
from etarm.vgf import VgfCompileSpec, VgfPartitioner

# etarm's own reading of what the flows wrote (not part of the flows).
from etarm.pte import delegate_payloads
from etarm.tosa.reference_model import run_tosa


class SmallNet(torch.nn.Module):
    def __init__(self, int64_constant=False):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)
        self.int64_constant = int64_constant

    def forward(self, x):
        y = self.fc(torch.relu(self.conv(x)).mean(dim=(2, 3)))
        return y + torch.arange(4) if self.int64_constant else y  # what the int64 passes are for


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 3, 8, 8),)


def quantize(model, inputs, quantizer):
    """The documented PT2E steps: export, prepare, calibrate, convert, export again."""
    graph_module = torch.export.export(model, inputs).module()
    prepared = prepare_pt2e(graph_module, quantizer)
    prepared(*inputs)
    return torch.export.export(convert_pt2e(prepared), inputs)


def only_payload(pte_path, backend_id):
    payloads = delegate_payloads(pte_path.read_bytes())
    assert [p.backend_id for p in payloads] == [backend_id]
    return payloads[0].data


def test_tosa_fp_with_the_int64_passes(tmp_path):
    model, inputs = SmallNet(int64_constant=True).eval(), example_inputs()
    compile_spec = TosaCompileSpec("TOSA-1.0+FP")
    exported_program = torch.export.export(model, inputs)
    edge = to_edge_transform_and_lower(
        exported_program,
        transform_passes=[
            ConvertInt64ConstOpsToInt32Pass(),
            ConvertInt64OutputOpsToInt32Pass(),
            InsertInt32CastsAfterInt64PlaceholdersPass(),
        ],
        partitioner=[TOSAPartitioner(compile_spec)],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    save_pte_program(edge.to_executorch(), str(tmp_path / "net_fp"))

    tosa = only_payload(tmp_path / "net_fp.pte", "TOSABackend")
    (got,) = run_tosa(tosa, [inputs[0].numpy()])
    np.testing.assert_allclose(got, model(*inputs).detach().numpy(), atol=1e-5, rtol=1e-5)


def test_tosa_int(tmp_path):
    model, inputs = SmallNet().eval(), example_inputs()
    compile_spec = TosaCompileSpec("TOSA-1.0+INT")
    quantizer = TOSAQuantizer(compile_spec)
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    quantized = quantize(model, inputs, quantizer)
    edge = to_edge_transform_and_lower(quantized, partitioner=[TOSAPartitioner(compile_spec)])
    save_pte_program(edge.to_executorch(), str(tmp_path / "net_int"))

    # The delegate takes and returns int8; the quantize at the input and the dequantize at
    # the output (on the CPU) carry the parameters to compare through.
    tosa = only_payload(tmp_path / "net_int.pte", "TOSABackend")
    (in_scale, in_zp), (out_scale, out_zp) = edge_quantization(quantized)
    q_input = np.clip(np.round(inputs[0].numpy() / in_scale) + in_zp, -128, 127).astype(np.int8)
    (got,) = run_tosa(tosa, [q_input])
    want = quantized.module()(*inputs).detach().numpy()
    np.testing.assert_allclose((got.astype(np.float32) - out_zp) * out_scale, want, atol=out_scale * 1.01)


def edge_quantization(quantized_program):
    """(scale, zero point) of the model input's quantize and of the model output's dequantize."""
    nodes = list(quantized_program.graph.nodes)
    quantize = next(n for n in nodes if n.op == "call_function" and "quantize_per_tensor" in str(n.target))
    output = nodes[-1].args[0][0]
    assert "dequantize_per_tensor" in str(output.target)
    return tuple(quantize.args[1:3]), tuple(output.args[1:3])


def _ethos_u_flow(tmp_path, target):
    model, inputs = SmallNet().eval(), example_inputs()
    compile_spec = EthosUCompileSpec(
        target=target,
        system_config="Ethos_U55_High_End_Embedded" if "u55" in target else "Ethos_U85_SYS_DRAM_Mid",
        memory_mode="Shared_Sram" if "u55" in target else "Dedicated_Sram_384KB",
        extra_flags=["--output-format=raw", "--debug-force-regor"],
    )
    quantizer = EthosUQuantizer(compile_spec)
    operator_config = get_symmetric_quantization_config()
    quantizer.set_global(operator_config)
    quantized_exported_program = quantize(model, inputs, quantizer)
    partitioner = EthosUPartitioner(compile_spec)
    edge_program_manager = to_edge_transform_and_lower(
        quantized_exported_program,
        partitioner=[partitioner],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    executorch_program_manager = edge_program_manager.to_executorch(
        config=ExecutorchBackendConfig(extract_delegate_segments=False)
    )
    save_pte_program(executorch_program_manager, str(tmp_path / "ethos_u_minimal_example.pte"))
    payload = only_payload(tmp_path / "ethos_u_minimal_example.pte", "EthosUBackend")
    assert len(payload) > 0


def test_ethos_u55(tmp_path):
    _ethos_u_flow(tmp_path, "ethos-u55-128")


def test_ethos_u85(tmp_path):
    _ethos_u_flow(tmp_path, "ethos-u85-256")


def _vgf_flow(tmp_path, compile_spec, quantized):
    model, inputs = SmallNet().eval(), example_inputs()
    exported_program = torch.export.export(model, inputs)
    if quantized:
        quantizer = VgfQuantizer(compile_spec)
        quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
        exported_program = quantize(model, inputs, quantizer)
    edge_program_manager = to_edge_transform_and_lower(
        exported_program,
        partitioner=[VgfPartitioner(compile_spec)],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    executorch_program_manager = edge_program_manager.to_executorch(
        config=ExecutorchBackendConfig(extract_delegate_segments=False)
    )
    save_pte_program(executorch_program_manager, str(tmp_path / "vgf_example"))
    return (tmp_path / "vgf_example.pte").read_bytes()


@pytest.mark.parametrize(
    "tosa_spec, quantized, lowered_with",
    [
        ("TOSA-1.0+FP", False, "TOSA-1.0+FP"),
        ("TOSA-1.0+INT", True, "TOSA-1.0+INT"),
        # The peer's default names both profiles: each program is lowered with the one it needs.
        (None, False, "TOSA-1.0+FP"),
        (None, True, "TOSA-1.0+INT+int16+int4"),
    ],
)
def test_vgf(tmp_path, tosa_spec, quantized, lowered_with):
    compile_spec = VgfCompileSpec(tosa_spec) if tosa_spec else VgfCompileSpec()
    (payload,) = delegate_payloads(_vgf_flow(tmp_path, compile_spec, quantized))
    assert payload.backend_id == "VgfBackend" and payload.data[:4] == b"VGF1"
    assert str(VgfCompileSpec.from_list(list(payload.compile_specs)).tosa_spec) == lowered_with
