"""The VGF target (Vulkan ML graphs): compile spec, partitioner, quantizer and the model-converter backend.

    from etarm.vgf import VgfCompileSpec, VgfPartitioner, VgfQuantizer

The names mirror ExecuTorch's Arm backend so user code ports by changing imports.
Submodules import lazily: ``etarm.vgf.report`` needs neither torch nor vgfpy.
"""

from __future__ import annotations

from etarm.lazy_exports import lazy_getattr

_EXPORTS = {
    "VgfCompileSpec": "etarm.vgf.compile_spec",
    "VgfPartitioner": "etarm.vgf.partitioner",
    "VgfBackend": "etarm.vgf.backend",
    "VgfQuantizer": "etarm.vgf.quantizer",
    "VGFQuantizer": "etarm.vgf.quantizer",
}

__all__ = list(_EXPORTS)
__getattr__ = lazy_getattr(__name__, _EXPORTS)
