"""Loads ExecuTorch's host runtime libraries from the executorch package importable here (the
1.5.1 wheel etarm pins), wherever it is installed, before the extension that needs them:
_runtime.so names them without a path, and the loader then finds them already loaded."""

import ctypes
import pathlib
from typing import Iterable

import executorch

# In dependency order: each needs the ones before it.
LIBRARIES = (
    "libexecutorch.so",
    "libexecutorch_threadpool.so",
    "libexecutorch_kernels_optimized.so",
    "libexecutorch_kernels_quantized.so",
)


def library_directory(package_folders: Iterable[str]) -> pathlib.Path:
    """The executorch package's lib/ folder. pip installs executorch as a namespace package (no
    __init__.py, so no __file__): its folders are __path__, and one of them holds lib/."""
    folders = list(package_folders)
    for folder in folders:
        if (pathlib.Path(folder) / "lib" / LIBRARIES[0]).exists():
            return pathlib.Path(folder) / "lib"
    raise ImportError(f"etarm.runtime: no lib/{LIBRARIES[0]} in the executorch package ({folders})")


def load() -> None:
    directory = library_directory(executorch.__path__)
    for name in LIBRARIES:
        ctypes.CDLL(str(directory / name))


load()
