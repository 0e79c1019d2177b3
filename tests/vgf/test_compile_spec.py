"""VgfCompileSpec: the ExecuTorch Arm backend's TOSA spellings, converter flags, the .pte form."""

import pytest
import torch

from etarm.errors import EtarmError
from etarm.quantizer import VGFQuantizer, VgfQuantizer
from etarm.targets import compile_spec_for
from etarm.vgf import VgfCompileSpec


@pytest.mark.parametrize(
    "text, profiles, extensions",
    [
        ("TOSA-1.0+FP", {"FP"}, set()),
        ("TOSA-1.0+INT", {"INT"}, set()),
        ("TOSA-1.0+INT+int16", {"INT"}, {"int16"}),
        ("TOSA-1.0+FP+INT", {"FP", "INT"}, set()),
        ("TOSA-1.0+INT+FP", {"FP", "INT"}, set()),
        ("TOSA-1.0+FP+INT+int4+int16", {"FP", "INT"}, {"int4", "int16"}),
    ],
)
def test_the_peers_spellings(text, profiles, extensions):
    spec = VgfCompileSpec(text)
    assert (set(spec.tosa_spec.profiles), set(spec.tosa_spec.extensions)) == (profiles, extensions)
    assert spec.compiler_flags == () and spec.target == "vgf"


def test_default_is_the_peers():
    assert str(VgfCompileSpec().tosa_spec) == "TOSA-1.0+FP+INT+int16+int4"


@pytest.mark.parametrize(
    "text, message",
    [
        ("TOSA-2.0+FP", "unsupported TOSA version 2.0"),
        ("TOSA-1.0", "invalid TOSA specification"),
        ("TOSA-1.0+fp", "unknown TOSA profile or extension 'fp'"),
        ("TOSA-1.0+FP+int16", "'int16' needs the INT profile"),
        ("vgf", "invalid TOSA specification 'vgf'"),
    ],
)
def test_bad_specifications(text, message):
    with pytest.raises(EtarmError, match=message):
        VgfCompileSpec(text)


def test_converter_flags_pass_through():
    assert VgfCompileSpec("TOSA-1.0+FP", ["--emit-debug-info"]).compiler_flags == ("--emit-debug-info",)
    assert VgfCompileSpec("TOSA-1.0+FP", "--disable-replicated-composites --require-static-shape").compiler_flags == (
        "--disable-replicated-composites",
        "--require-static-shape",
    )
    # Narrowing nothing keeps the I/O contract.
    assert VgfCompileSpec("TOSA-1.0+FP", ["--type-narrowing", "none"]).compiler_flags == ("--type-narrowing", "none")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--type-narrowing", "full"], "may not set --type-narrowing: .*fp16"),
        (["--type-narrowing=partial"], "may not set --type-narrowing=partial"),
        (["--tosa-flatbuffer"], "may not set --tosa-flatbuffer: it writes a TOSA flatbuffer"),
        (["-o", "x.vgf"], "may not set -o: the VGF backend passes"),
        (["--input=x.tosa"], "may not set --input=x.tosa"),
    ],
)
def test_flags_that_change_the_payload_are_refused(flags, message):
    with pytest.raises(EtarmError, match=message):
        VgfCompileSpec("TOSA-1.0+FP", flags)


def test_compile_spec_list_round_trip(tmp_path):
    spec = VgfCompileSpec("TOSA-1.0+INT+int16", ["--emit-debug-info"]).dump_intermediate_artifacts_to(str(tmp_path))
    assert [s.key for s in spec.to_list()] == ["tosa_spec", "vgf_compiler_flags", "intermediates_dir"]
    assert VgfCompileSpec.from_list(spec.to_list()) == spec
    with pytest.raises(EtarmError, match="no VGF settings"):
        VgfCompileSpec.from_list(spec.to_list()[:1])


def _program(quantized: bool):
    class Net(torch.nn.Module):
        def forward(self, x):
            if quantized:
                x = torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.1, 0, -128, 127, torch.int8)
                x = torch.ops.quantized_decomposed.dequantize_per_tensor(x, 0.1, 0, -128, 127, torch.int8)
            return x + 1

    return torch.export.export(Net(), (torch.randn(2),))


def test_both_profiles_resolve_to_the_programs():
    spec = VgfCompileSpec("TOSA-1.0+FP+INT+int16", ["--emit-debug-info"])
    assert str(spec.for_program(_program(quantized=False)).tosa_spec) == "TOSA-1.0+FP"
    quantized = spec.for_program(_program(quantized=True))
    assert str(quantized.tosa_spec) == "TOSA-1.0+INT+int16" and quantized.compiler_flags == spec.compiler_flags
    one_profile = VgfCompileSpec("TOSA-1.0+FP")
    assert one_profile.for_program(_program(quantized=True)) is one_profile


def test_the_cli_target_is_fp_and_int_with_q():
    assert str(compile_spec_for("vgf").tosa_spec) == "TOSA-1.0+FP"
    assert str(compile_spec_for("VGF", quantize=True).tosa_spec) == "TOSA-1.0+INT"
    spec = compile_spec_for("vgf", {"converter_flags": "--emit-debug-info"})
    assert spec.compiler_flags == ("--emit-debug-info",)


def test_quantizer_quantizes_for_the_int_profile():
    assert VGFQuantizer is VgfQuantizer
    assert str(VgfQuantizer(VgfCompileSpec()).tosa_spec) == "TOSA-1.0+INT+int16+int4"
    assert str(VgfQuantizer(VgfCompileSpec("TOSA-1.0+INT")).tosa_spec) == "TOSA-1.0+INT"
    with pytest.raises(EtarmError, match="needs a spec with the INT profile; TOSA-1.0\\+FP has none"):
        VgfQuantizer(VgfCompileSpec("TOSA-1.0+FP"))
    with pytest.raises(EtarmError, match="needs a VgfCompileSpec"):
        VgfQuantizer("TOSA-1.0+INT")
