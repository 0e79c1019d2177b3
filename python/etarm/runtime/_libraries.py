"""Loads ExecuTorch's host runtime libraries from the executorch package importable here (the
1.5.1 wheel etarm pins), wherever it is installed, before the extension that needs them:
_runtime.so names them without a path, and the loader then finds them already loaded."""

import ctypes
import pathlib

import executorch

# In dependency order: each needs the ones before it.
_LIBRARIES = (
    "libexecutorch.so",
    "libexecutorch_threadpool.so",
    "libexecutorch_kernels_optimized.so",
    "libexecutorch_kernels_quantized.so",
)

_directory = pathlib.Path(executorch.__file__).parent / "lib"
for _name in _LIBRARIES:
    ctypes.CDLL(str(_directory / _name))
