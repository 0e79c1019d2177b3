"""`etarm run MODEL.pte`: runs a program on this host, as a user does (its own process), and
compares it with the model it came from; `etarm run MODEL.bpte` checks a bundle."""

import re

import numpy as np
import pytest
import torch

from etarm.bundleio import read_bpte
from etarm.testing.cli import run_cli

MODEL = """
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 4)
    def forward(self, x):
        return torch.relu(self.fc(x))
torch.manual_seed(0)
ModelUnderTest = Net()
ModelInputs = (torch.randn(2, 6),)
"""


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "net.py"
    path.write_text(MODEL)
    return path


def compiled(model_file, target, *flags):
    pte = model_file.parent / f"net_{target}.pte"
    if not pte.exists():
        done = run_cli("compile", "-m", str(model_file), "-t", target, *flags, "-o", str(pte))
        assert done.returncode == 0, done.stderr[-3000:]
    return pte


def run_ok(*args):
    done = run_cli("run", *args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


def max_diff(stdout, label):
    return float(re.search(rf"{label}\s+output 0: max \|diff\| (\S+)", stdout).group(1))


def test_a_quantized_program_matches_the_quantized_model(model_file):
    out = run_ok(str(compiled(model_file, "TOSA-1.0+INT", "-q")), "--model", str(model_file))
    assert "delegates: TOSABackend" in out
    assert re.search(r"output 0 +float32 \[2, 4\]: ", out)
    assert re.search(r"time +execute [0-9.]+ ms", out)
    assert re.search(r"memory +\d+ bytes of the runner's arena", out)
    assert max_diff(out, "vs quantized") == 0
    assert 0 < max_diff(out, "vs torch") < 0.1  # what int8 costs


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_an_ethos_u_program_runs_on_the_npu_model(model_file, target):
    out = run_ok(str(compiled(model_file, target, "-q")), "--model", str(model_file))
    assert "delegates: EthosUBackend" in out
    assert max_diff(out, "vs quantized") == 0


def test_a_float_program_matches_torch(model_file):
    out = run_ok(str(compiled(model_file, "TOSA-1.0+FP")), "--model", str(model_file))
    assert max_diff(out, "vs torch") < 1e-5
    assert "vs quantized" not in out


def test_inputs_from_npy_and_pt_files(model_file, tmp_path):
    x = torch.randn(2, 6)
    np.save(tmp_path / "x.npy", x.numpy())
    torch.save((x,), tmp_path / "x.pt")
    pte = str(compiled(model_file, "TOSA-1.0+FP"))
    from_npy = run_ok(pte, "--inputs", str(tmp_path / "x.npy"), "--model", str(model_file))
    from_pt = run_ok(pte, "--inputs", str(tmp_path / "x.pt"))
    assert f"inputs       {tmp_path / 'x.npy'}" in from_npy
    assert max_diff(from_npy, "vs torch") < 1e-5
    values = re.search(r"output 0 .*", from_npy).group(0)
    assert values == re.search(r"output 0 .*", from_pt).group(0)


def test_without_inputs_the_program_runs_on_ones(model_file):
    assert "inputs       ones" in run_ok(str(compiled(model_file, "TOSA-1.0+FP")))


@pytest.mark.parametrize(
    "args, message",
    [
        (["/nonexistent/net.pte"], "program file '/nonexistent/net.pte' does not exist"),
        (["{fp}", "--inputs", "/nonexistent/x.npy"], "input file '/nonexistent/x.npy' does not exist"),
        (["{fp}", "--inputs", "{wrong}"], r"input 0: shape \[3, 3\] is not the program's \[2, 6\]"),
        (["{garbage}"], "not a readable .pte"),
    ],
)
def test_mistakes_are_one_line(model_file, tmp_path, args, message):
    np.save(tmp_path / "wrong.npy", np.ones((3, 3), np.float32))
    (tmp_path / "garbage.pte").write_bytes(b"not a program at all")
    paths = {
        "fp": compiled(model_file, "TOSA-1.0+FP"),
        "wrong": tmp_path / "wrong.npy",
        "garbage": tmp_path / "garbage.pte",
    }
    done = run_cli("run", *[a.format(**paths) for a in args])
    assert done.returncode == 2
    assert re.fullmatch(f"etarm: error: .*{message}.*\n", done.stderr), done.stderr


def test_a_bundle_with_tosa_partitions_is_checked_against_its_expected_outputs(model_file, tmp_path):
    bpte = tmp_path / "net.bpte"
    done = run_cli("compile", "-m", str(model_file), "-t", "TOSA-1.0+INT", "-q", "--bundleio", "-o", str(bpte))
    assert done.returncode == 0, done.stderr[-3000:]
    out = run_ok(str(bpte))
    assert re.search(r"test case 0 +max \|got - expected\| = 0, 0 of 8 values outside tolerance", out)
    assert out.endswith("PASS\n")

    # One expected value moved far off: the check fails, and says so.
    expected = read_bpte(bpte.read_bytes()).test_cases[0].expected_outputs[0]
    data = bpte.read_bytes()
    start = data.find(expected.tobytes())
    wrong = expected.copy()
    wrong.flat[0] += 100
    bpte.write_bytes(data[:start] + wrong.tobytes() + data[start + wrong.nbytes :])
    failed = run_cli("run", str(bpte))
    assert failed.returncode == 1
    assert "1 of 8 values outside tolerance" in failed.stdout and failed.stdout.endswith("FAIL\n")


EXTENSION_MODEL = """
import torch
class Product(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(x, w).permute(1, 0)
generator = torch.Generator().manual_seed(2)
ModelUnderTest = Product()
ModelInputs = tuple((torch.rand(s, generator=generator) * 2 - 1).to(torch.{dtype}) for s in ((3, 4), (4, 5)))
"""


@pytest.mark.parametrize("dtype, extension", [("bfloat16", "bf16"), ("float8_e4m3fn", "fp8e4m3")])
def test_an_extension_float_program_runs(tmp_path, dtype, extension):
    """bf16/fp8 programs run (the reference model's raw bytes read as the output's type) and
    compare with torch (fp8 matmul: torch on CPU has none, so only the run and its printout)."""
    model = tmp_path / "product.py"
    model.write_text(EXTENSION_MODEL.format(dtype=dtype))
    pte = compiled(model, f"TOSA-1.0+FP+{extension}")
    out = run_ok(str(pte), *(["--model", str(model)] if dtype == "bfloat16" else []))
    assert re.search(rf"output 0 +{dtype} \[5, 3\]: -?\d", out), out
    if dtype == "bfloat16":
        assert max_diff(out, "vs torch") <= 2 ** -7 * 4
