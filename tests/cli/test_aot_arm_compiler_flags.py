"""The flags of executorch 1.5.1's aot_arm_compiler that `etarm compile` takes, each doing what
it does there (the README's flags table lists every one)."""

import json

import pytest
import torch
from executorch.devtools.etrecord import parse_etrecord

from etarm.ethosu.vela_config import bundled_config_path
from etarm.testing.cli import run_cli

MODEL = """
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2
ModelUnderTest = Net()
ModelInputs = (torch.randn(2, 3),)
WideInputs = (torch.randn(4, 8),)
"""


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(MODEL)
    return path


def compile_ok(*args):
    done = run_cli("compile", *args)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def report_inputs(path):
    return [i["shape"] for i in json.loads(path.read_text())["inputs"]]


def test_model_input_names_a_variable_of_the_model_file(tmp_path, model_file):
    compile_ok("-m", str(model_file), "--model_input", "WideInputs", "-o", str(tmp_path / "a.pte"), "--report", str(tmp_path / "a.json"))
    assert report_inputs(tmp_path / "a.json") == [[4, 8]]


def test_model_input_reads_a_pt_file(tmp_path, model_file):
    torch.save((torch.randn(3, 7),), tmp_path / "inputs.pt")
    compile_ok("-m", str(model_file), "--model_input", str(tmp_path / "inputs.pt"), "-o", str(tmp_path / "b.pte"), "--report", str(tmp_path / "b.json"))
    assert report_inputs(tmp_path / "b.json") == [[3, 7]]


def test_etrecord_is_written_beside_the_pte_and_parses(tmp_path, model_file):
    compile_ok("-m", str(model_file), "--etrecord", "-o", str(tmp_path / "net.pte"))
    record = parse_etrecord(str(tmp_path / "net_etrecord.bin"))
    assert record.edge_dialect_program is not None
    assert record._debug_handle_map  # what the Inspector maps runtime events back with


def test_config_names_a_custom_vela_ini(tmp_path):
    # A board of our own: the bundled Ethos-U55 system config under another name, found only
    # in the custom file.
    ini = bundled_config_path()
    custom = open(ini).read().replace("[System_Config.Ethos_U55_High_End_Embedded]", "[System_Config.Our_Board]")
    (tmp_path / "vela.ini").write_text(custom)
    common = ["-m", "add", "-t", "ethos-u55-128", "-q", "-o", str(tmp_path / "add.pte"), "--system_config", "Our_Board"]
    compile_ok(*common, "--config", str(tmp_path / "vela.ini"))
    without = run_cli("compile", *common)
    assert without.returncode == 2 and "Our_Board" in without.stderr


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--config", "vela.ini"], "etarm: error: --config applies to Ethos-U targets only, not 'TOSA-1.0+FP'"),
        (["--direct_drive"], "etarm: error: --direct_drive applies to Ethos-U targets only, not 'TOSA-1.0+FP'"),
        (["--cortex-m-explicit-layout"], "etarm: error: --cortex-m-explicit-layout applies to Cortex-M targets only"),
        (["-s", "no_such_library.so"], "etarm: error: --so_library 'no_such_library.so' does not exist"),
    ],
)
def test_flags_that_do_not_apply_are_refused_in_one_line(tmp_path, flags, message):
    done = run_cli("compile", "-m", "add", "-t", "TOSA-1.0+FP", "-o", str(tmp_path / "x.pte"), *flags)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(message) and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_cortex_m_explicit_layout_is_accepted_for_cortex_m(tmp_path):
    """etarm's Cortex-M pipeline always uses explicit permutes, what the peer's flag asks for."""
    compile_ok("-m", "add", "-t", "cortex-m55", "-q", "--cortex-m-explicit-layout", "-o", str(tmp_path / "add.pte"))
    assert (tmp_path / "add.pte").stat().st_size > 0


def test_bundleio_writes_a_bpte_named_like_a_pte_and_reports_it(tmp_path, model_file):
    done = compile_ok("-m", str(model_file), "--bundleio", "-o", str(tmp_path), "--report", str(tmp_path / "r.json"))
    bpte = tmp_path / "net_TOSA-1.0+FP.bpte"
    assert bpte.read_bytes()[4:8] == b"BP08"
    assert not (tmp_path / "net_TOSA-1.0+FP.pte").exists()
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["bpte_path"] == str(bpte) and report["bundle"]["bpte_bytes"] == bpte.stat().st_size
    atol, rtol = report["bundle"]["atol"], report["bundle"]["rtol"]
    assert f"wrote       {bpte} (" in done.stdout
    expected = f"expected    the float model's outputs, within atol {atol:.3g} + rtol {rtol:.3g} * |expected|"
    assert expected in done.stdout
    compile_ok("-m", str(model_file), "--bundleio", "-o", str(tmp_path / "named.bpte"))
    assert (tmp_path / "named.bpte").is_file()


@pytest.mark.parametrize(
    "output, flags, message",
    [
        ("x.pte", ["--bundleio"], "--bundleio writes a .bpte"),
        ("x.bpte", [], "a .bpte needs --bundleio"),
    ],
)
def test_output_name_must_match_bundleio(tmp_path, output, flags, message):
    done = run_cli("compile", "-m", "add", "-o", str(tmp_path / output), *flags)
    assert done.returncode == 2
    assert done.stderr.strip() == f"etarm: error: -o {tmp_path / output}: {message}"


def test_export_modes_and_the_deprecated_fusion_flag(tmp_path, model_file):
    for flags in (["--strict_export"], ["--non_strict_export"], ["--enable_qdq_fusion_pass"]):
        compile_ok("-m", str(model_file), "-o", str(tmp_path / "net.pte"), *flags)


DEBUG_MODEL = """
import torch
class Net(torch.nn.Module):
    def forward(self, x, y):
        s = x + y
        return torch.sigmoid(s) * x
ModelUnderTest = Net()
ModelInputs = (torch.randn(2, 3), torch.randn(2, 3))
"""


@pytest.mark.parametrize("mode", ["json", "tosa"])
def test_debug_mode_maps_every_tosa_operator_to_its_node_and_source_line(tmp_path, mode):
    model = tmp_path / "dbg.py"
    model.write_text(DEBUG_MODEL)
    compile_ok("-m", str(model), "-t", "TOSA-1.0+FP", "-o", str(tmp_path / "dbg.pte"), "--enable_debug_mode", mode)
    debug = json.loads((tmp_path / "dbg_debug.json").read_text())
    (partition,) = debug["partitions"]
    operators = partition["operators"]
    assert [op["index"] for op in operators] == list(range(len(operators)))
    by_aten = {op["aten_op"]: op["source"] for op in operators}
    assert by_aten == {
        "aten.add.Tensor": f"{model}:5 in forward",
        "aten.sigmoid.default": f"{model}:6 in forward",
        "aten.mul.Tensor": f"{model}:6 in forward",
    }
    assert {op["tosa_op"] for op in operators} >= {"ADD", "SIGMOID", "MUL"}
    assert (tmp_path / "dbg_tosa" / "partition_0.tosa").exists() == (mode == "tosa")


def test_direct_drive_is_an_ethos_u85_stream_with_its_own_io_regions(tmp_path):
    """--direct_drive: Vela's COP2 stream with the inputs in region 3 and the outputs in region 4
    (what the peer's flag asks of Vela); refused in one line on an Ethos-U55."""
    from etarm.ethosu.payload import EthosUPayload
    from etarm.pte import delegate_payloads

    out = tmp_path / "mlp.pte"
    done = compile_ok("-m", "mlp", "-t", "ethos-u85-256", "-q", "--direct_drive", "-o", str(out))
    assert "Dedicated_Sram_384KB, 1000 MHz, direct drive (COP2; inputs in region 3, outputs in region 4)" in done.stdout
    (delegate,) = delegate_payloads(out.read_bytes())
    payload = EthosUPayload.from_bytes(delegate.data)
    assert payload.cmd_data[:4] == b"COP2"
    assert [io.region for io in payload.inputs] == [3] and [io.region for io in payload.outputs] == [4]

    refused = run_cli("compile", "-m", "mlp", "-t", "ethos-u55-128", "-q", "--direct_drive", "-o", str(out))
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "etarm: error: direct drive (separate I/O regions) is an Ethos-U85 feature; ethos-u55-128 is Ethos-U55"
    )
