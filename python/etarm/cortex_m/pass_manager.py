"""CortexMPassManager: the Cortex-M pipeline's edge passes on one program, as the peer spells it.

    edge = to_edge_transform_and_lower(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    program = CortexMPassManager(edge.exported_program()).transform()

etarm's compiler runs the same passes itself (``etarm compile -t cortex-m55 -q``).
"""

from __future__ import annotations

from torch.export import ExportedProgram

from etarm.cortex_m.compile_spec import CortexMCompileSpec
from etarm.passes.base import Stage


class CortexMPassManager:
    def __init__(self, exported_program: ExportedProgram, compile_spec: CortexMCompileSpec | None = None):
        self.exported_program = exported_program
        self.pipeline = (compile_spec or CortexMCompileSpec()).pipeline()

    def transform(self) -> ExportedProgram:
        return self.pipeline.run_program(Stage.EDGE, self.exported_program)
