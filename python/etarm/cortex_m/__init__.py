"""The Cortex-M target: quantized ops as cortex_m:: kernels backed by CMSIS-NN (docs/cortex_m.md)."""

from etarm.cortex_m import ops  # noqa: F401  (defines the cortex_m:: operators)
from etarm.cortex_m.compile_spec import CortexMCompileSpec
from etarm.cortex_m.pass_manager import CortexMPassManager
from etarm.cortex_m.quantizer import CortexMQuantizer

__all__ = ["CortexMCompileSpec", "CortexMPassManager", "CortexMQuantizer"]
