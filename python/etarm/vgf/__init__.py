"""The VGF target (Vulkan ML graphs): compile spec, partitioner, quantizer and the model-converter backend.

    from etarm.vgf import VgfCompileSpec, VgfPartitioner, VgfQuantizer

The names mirror ExecuTorch's Arm backend so user code ports by changing imports.
Submodules import lazily: ``etarm.vgf.report`` needs neither torch nor vgfpy.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "VgfCompileSpec": "etarm.vgf.compile_spec",
    "VgfPartitioner": "etarm.vgf.partitioner",
    "VgfBackend": "etarm.vgf.backend",
    "VgfQuantizer": "etarm.vgf.quantizer",
    "VGFQuantizer": "etarm.vgf.quantizer",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'etarm.vgf' has no attribute '{name}'")
