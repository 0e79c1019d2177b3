"""`./bazelw run //:python -- script.py ARGS`: a user's script runs with etarm importable, in
the directory the user called bazelw from."""

import os
import subprocess
import sys

RUNNER = os.environ.get("ETARM_PYTHON_RUNNER")
PYTHON = [RUNNER] if RUNNER else [sys.executable, os.path.join(os.path.dirname(__file__), "../../python/interpreter.py")]


def run(args, where, timeout=600):
    env = {**os.environ, "ETARM_WORKING_DIRECTORY": str(where)}
    return subprocess.run([*PYTHON, *args], capture_output=True, text=True, env=env, timeout=timeout)


def test_a_script_compiles_a_model_with_relative_paths(tmp_path):
    (tmp_path / "compile_add.py").write_text(
        "import sys\n"
        "import torch\n"
        "from etarm.compiler import compile_model\n"
        "class Add(torch.nn.Module):\n"
        "    def forward(self, x, y):\n"
        "        return x + y\n"
        "inputs = (torch.ones(2, 3), torch.ones(2, 3))\n"
        "result = compile_model(Add(), inputs, 'TOSA-1.0+FP')\n"
        "open(sys.argv[1], 'wb').write(result.pte)\n"
        "print('script got', sys.argv[1:])\n"
    )
    done = run(["compile_add.py", "add.pte", "--flag"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "script got ['add.pte', '--flag']" in done.stdout
    assert (tmp_path / "add.pte").stat().st_size > 0


def test_code_and_modules(tmp_path):
    (tmp_path / "helper_module.py").write_text("import sys\nprint('module ran with', sys.argv[1:])\n")
    done = run(["-c", "import etarm.quantizer, os; print(os.getcwd())"], tmp_path)
    assert done.returncode == 0 and done.stdout.strip().endswith(str(tmp_path)), done.stderr[-2000:]
    done = run(["-m", "helper_module", "x"], tmp_path)
    assert done.returncode == 0 and "module ran with ['x']" in done.stdout, done.stderr[-2000:]


def test_a_missing_script_is_one_line(tmp_path):
    done = run(["no_such_script.py"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "python: can't open file 'no_such_script.py': no such file"
    assert "Traceback" not in done.stderr
