"""Ethos-U55/U65/U85 targets: compile spec, partitioner, quantizer and the Vela backend.

    from etarm.ethosu import EthosUCompileSpec, EthosUPartitioner, EthosUQuantizer

The names mirror ExecuTorch's Arm backend so user code ports by changing imports.
Submodules import lazily: ``etarm.ethosu.payload`` and ``etarm.ethosu.report`` need
neither torch nor Vela.
"""

from __future__ import annotations

from etarm.lazy_exports import lazy_getattr

_EXPORTS = {
    "EthosUCompileSpec": "etarm.ethosu.compile_spec",
    "EthosUPartitioner": "etarm.ethosu.partitioner",
    "EthosUBackend": "etarm.ethosu.backend",
    "EthosUQuantizer": "etarm.ethosu.quantizer",
    "EthosUPayload": "etarm.ethosu.payload",
}

__all__ = list(_EXPORTS)
__getattr__ = lazy_getattr(__name__, _EXPORTS)
