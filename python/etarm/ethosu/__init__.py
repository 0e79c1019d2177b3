"""Ethos-U55/U65/U85 targets: compile spec, partitioner, quantizer and the Vela backend.

    from etarm.ethosu import EthosUCompileSpec, EthosUPartitioner, EthosUQuantizer

The names mirror ExecuTorch's Arm backend so user code ports by changing imports.
Submodules import lazily: ``etarm.ethosu.payload`` and ``etarm.ethosu.report`` need
neither torch nor Vela.
"""

from __future__ import annotations

_EXPORTS = {
    "EthosUCompileSpec": "etarm.ethosu.compile_spec",
    "EthosUPartitioner": "etarm.ethosu.partitioner",
    "EthosUBackend": "etarm.ethosu.backend",
    "EthosUQuantizer": "etarm.ethosu.quantizer",
    "EthosUPayload": "etarm.ethosu.payload",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'etarm.ethosu' has no attribute '{name}'")
