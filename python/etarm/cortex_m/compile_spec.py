"""CortexMCompileSpec: the Cortex-M CPU a program is built for.

The cortex_m ops compute TOSA INT's integer semantics (single rounding), so the spec carries
TOSA-1.0+INT+int16: quantizers annotate for it (int8, or int16 activations: a16w8) and compile_model
asks for -q (an integer-only target).
"""

from __future__ import annotations

import dataclasses

from etarm.cortex_m.pipeline import cortex_m_pipeline
from etarm.passes.base import Pipeline
from etarm.tosa_ir.specification import TosaSpecification

# The peer's -t names (executorch's aot_arm_compiler).
TARGETS = (
    "cortex-m0",
    "cortex-m0plus",
    "cortex-m3",
    "cortex-m4",
    "cortex-m7",
    "cortex-m23",
    "cortex-m33",
    "cortex-m35p",
    "cortex-m55",
    "cortex-m85",
)
INT_SPEC = "TOSA-1.0+INT+int16"


@dataclasses.dataclass
class CortexMCompileSpec:
    target: str = "cortex-m55"
    tosa_spec: TosaSpecification = dataclasses.field(
        default_factory=lambda: TosaSpecification.create_from_string(INT_SPEC)
    )
    intermediates_dir: str | None = None

    def pipeline(self) -> Pipeline:
        return cortex_m_pipeline(self.target)

    def dump_intermediate_artifacts_to(self, directory: str | None) -> "CortexMCompileSpec":
        self.intermediates_dir = directory
        return self
