"""`etarm kernels PROGRAM`: the kernels a .pte (or a .bpte's program) runs on the CPU, and `--registration OUT.cc`, the
C++ that registers only them (a firmware image's selective registration, kernels/defs.bzl)."""

import pytest

from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.kernel_registration import kernel_symbol
from etarm.models import load_model
from etarm.testing.cli import run_cli

_KERNELS = [
    "cortex_m::cpu_variant.out",
    "cortex_m::quantized_add.out",
    "quantized_decomposed::dequantize_per_tensor.out",
    "quantized_decomposed::quantize_per_tensor.out",
]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    model, inputs = load_model("add")
    result = compile_model(model, inputs, "cortex-m55", quantize=True, bundleio=True)
    directory = tmp_path_factory.mktemp("kernels")
    (directory / "add.pte").write_bytes(result.pte)
    (directory / "add.bpte").write_bytes(result.bpte)
    return directory


def test_kernels_lists_each_kernel_once(programs):
    proc = run_cli("kernels", str(programs / "add.pte"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == _KERNELS


def test_registration_of_a_bundles_program_declares_and_registers_its_kernels(programs):
    out = programs / "registration.cc"
    proc = run_cli("kernels", str(programs / "add.bpte"), "--registration", str(out))
    assert proc.returncode == 0, proc.stderr
    source = out.read_text()
    symbols = [kernel_symbol(k) for k in _KERNELS]
    assert symbols[1] == "etarm_kernel_cortex_m__quantized_add__out"
    for symbol in symbols:
        assert f'extern "C" ::executorch::runtime::Kernel {symbol}();' in source
        assert f"      {symbol}()," in source
    assert source.count("register_kernel(kernel)") == 1


def test_a_file_that_is_no_program_is_one_line(programs):
    bad = programs / "bad.pte"
    bad.write_bytes(b"not a program")
    proc = run_cli("kernels", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith("etarm: error:")


def test_a_name_without_overload_has_no_kernel_symbol():
    with pytest.raises(EtarmError, match="namespace::op.overload"):
        kernel_symbol("aten::add")
