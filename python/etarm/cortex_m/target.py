"""The Cortex-M target family: no delegate, quantized ops as CMSIS-NN kernels (cortex_m::*)."""

from __future__ import annotations

from etarm.cortex_m.compile_spec import TARGETS, CortexMCompileSpec
from etarm.cortex_m.partitioner import CortexMPartitioner
from etarm.cortex_m.quantizer import CortexMQuantizer
from etarm.errors import EtarmError
from etarm.quantization.quantization_config import (
    get_symmetric_a8w4_quantization_config,
    get_symmetric_a16w8_quantization_config,
)
from etarm.target_family import TargetFamily, TargetOption


def _default_quantizer(spec: CortexMCompileSpec, options: dict) -> CortexMQuantizer:
    """a8w8 unless --a16w8 asks for int16 activations (the CMSIS-NN s16 kernels) or --a8w4 for int4 weights (s4)."""
    quantizer = CortexMQuantizer(spec)
    if options.get("a16w8") and options.get("a8w4"):
        raise EtarmError(
            "--a16w8 and --a8w4 do not combine: CMSIS-NN has no kernel for int16 activations with int4 weights"
        )
    if options.get("a16w8"):
        quantizer.set_global(get_symmetric_a16w8_quantization_config())
    if options.get("a8w4"):
        quantizer.set_global(get_symmetric_a8w4_quantization_config())
    return quantizer


CORTEX_M = TargetFamily(
    name="Cortex-M",
    targets=TARGETS,
    description="no delegate: quantized ops as cortex_m:: CMSIS-NN kernels, the rest portable kernels",
    compile_spec=lambda target, options: CortexMCompileSpec(target.lower()),
    partitioner=CortexMPartitioner,
    default_quantizer=_default_quantizer,
    options=(
        TargetOption(
            "a16w8", "Cortex-M targets: int16 activations, int8 weights (CMSIS-NN's s16 kernels)", switch=True
        ),
        TargetOption(
            "a8w4",
            "Cortex-M targets: int8 activations, int4 weights for convolutions, depthwise ones and linear layers "
            "(CMSIS-NN's s4 kernels; packed two per byte)",
            switch=True,
        ),
    ),
    no_host_device="Cortex-M programs run on the runner (kernels/cortex_m), not in etarm run",
)
