"""The Cortex-M target family: no delegate, quantized ops as CMSIS-NN kernels (cortex_m::*)."""

from __future__ import annotations

from etarm.cortex_m.compile_spec import TARGETS, CortexMCompileSpec
from etarm.cortex_m.partitioner import CortexMPartitioner
from etarm.cortex_m.quantizer import CortexMQuantizer
from etarm.target_family import TargetFamily

CORTEX_M = TargetFamily(
    name="Cortex-M",
    targets=TARGETS,
    description="no delegate: quantized ops as cortex_m:: CMSIS-NN kernels, the rest portable kernels",
    compile_spec=lambda target, options: CortexMCompileSpec(target.lower()),
    partitioner=CortexMPartitioner,
    default_quantizer=lambda spec, options: CortexMQuantizer(spec),
    no_host_device="Cortex-M programs run on the runner (kernels/cortex_m), not in etarm run",
)
