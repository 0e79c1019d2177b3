"""//python:wheel: what it holds, what it requires, and that it installs into a fresh venv
and compiles a model there (the dependencies come from Bazel's pinned packages through a
.pth file, so the test needs no network)."""

import os
import pathlib
import re
import subprocess
import sys
import zipfile

import pytest

WHEEL = pathlib.Path(os.environ["ETARM_WHEEL"])
LOCK = pathlib.Path(os.environ["ETARM_REQUIREMENTS_LOCK"])
REQUIREMENTS_IN = pathlib.Path(os.environ["ETARM_REQUIREMENTS_IN"])
# Every .py of python/etarm in the source tree (not the __init__.py files Bazel adds to runfiles).
SOURCES = [pathlib.Path(p) for p in os.environ["ETARM_SOURCES"].split()]
# requirements.in lists the test tools beside etarm's own dependencies.
TEST_ONLY = {"pytest", "hypothesis", "pybind11"}


def wheel_names():
    with zipfile.ZipFile(WHEEL) as wheel:
        return set(wheel.namelist())


def metadata_lines(field):
    with zipfile.ZipFile(WHEEL) as wheel:
        text = wheel.read("etarm-0.1.0.dist-info/METADATA").decode()
    header = text.split("\n\n", 1)[0]
    return [line.split(": ", 1)[1] for line in header.splitlines() if line.startswith(f"{field}: ")]


def project_name(requirement):
    return re.split(r"[=<>!~ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_wheel_holds_every_module_but_the_tests_helpers():
    expected = {str(path.relative_to("python")) for path in SOURCES if "testing" not in path.parts}
    assert expected - wheel_names() == set()
    assert not any(name.startswith("etarm/testing/") for name in wheel_names())
    assert "etarm/runtime/_runtime.so" in wheel_names()  # etarm run's extension module
    assert "etarm/runtime/_vgf_delegate.so" in wheel_names()  # the VGF delegate it loads


def test_requirements_are_the_direct_pins_and_agree_with_the_lock():
    wanted = {}
    for line in REQUIREMENTS_IN.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and project_name(line) not in TEST_ONLY:
            wanted[project_name(line)] = line
    required = {project_name(r): r for r in metadata_lines("Requires-Dist")}
    assert set(required) == set(wanted)
    locked = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", LOCK.read_text(), re.M))
    locked = {project_name(name): version for name, version in locked.items()}
    for name, requirement in required.items():
        if "==" in requirement:
            pinned = requirement.split("==")[1]
            # torch's lock pin carries the CPU build's local tag; == ignores it, as pip does.
            assert locked[name].split("+")[0] == pinned, (name, locked[name], pinned)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    python = root / "bin" / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-index", str(WHEEL)],
        capture_output=True, text=True,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    # Bazel's pinned site-packages (torch, executorch, ...), but not etarm's sources.
    dependencies = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    pathlib.Path(site, "bazel_dependencies.pth").write_text("\n".join(dependencies) + "\n")
    return root


def run_in(venv, *command, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=900)


def test_installed_etarm_compiles_a_model(venv, tmp_path):
    where = run_in(venv, venv / "bin" / "python", "-c", "import etarm; print(etarm.__file__)", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip().startswith(str(venv)), where.stdout
    done = run_in(venv, venv / "bin" / "etarm", "compile", "-m", "add", "-t", "TOSA-1.0+FP", "-o", "add.pte", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "wrote       add.pte" in done.stdout
    assert (tmp_path / "add.pte").stat().st_size > 0


def test_installed_etarm_runs_a_program_with_its_extension(venv, tmp_path):
    compiled = run_in(venv, venv / "bin" / "etarm", "compile", "-m", "add", "-t", "TOSA-1.0+INT", "-q", "-o", "add.pte", cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    done = run_in(venv, venv / "bin" / "etarm", "run", "add.pte", "--model", "add", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "vs quantized output 0: max |diff| 0 " in done.stdout
    where = run_in(venv, venv / "bin" / "python", "-c", "import etarm.runtime._runtime as r; print(r.__file__)", cwd=tmp_path)
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr


def test_installed_etarm_runs_a_vgf_program_on_lavapipe(venv, tmp_path):
    """The wheel's VGF delegate, loaded from the installed package with the emulation layers of
    the installed ai-ml-emulation-layer-for-vulkan package."""
    compiled = run_in(venv, venv / "bin" / "etarm", "compile", "-m", "mlp", "-t", "vgf", "-q", "-o", "mlp.pte", cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    done = run_in(venv, venv / "bin" / "etarm", "run", "mlp.pte", "--model", "mlp", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "delegates: VgfBackend" in done.stdout and "vs quantized output 0: max |diff| 0 " in done.stdout
