"""VgfPartitioner: the TOSA partitioner, with the VGF backend.

    partitioner = VgfPartitioner(VgfCompileSpec("TOSA-1.0+FP"))

A node is delegated when the spec's TOSA profile can express it (the registry's checks and,
for INT, the quantized-region rules of the TOSA partitioner); ``additional_checks`` add the
user's own rules. model-converter 0.11.0 converts every TOSA graph etarm emits (every
operator sample and built-in network, FP, INT and INT+int16), so VGF adds no rule of its
own. A spec naming both profiles is resolved per program (VgfCompileSpec.for_program): its
partitions are lowered, and stored in the .pte, with the one profile the program needs.
"""

from __future__ import annotations

from executorch.exir.backend.partitioner import DelegationSpec
from torch.export import ExportedProgram

from etarm.tosa.partitioner import AdditionalCheck, TOSAPartitioner
from etarm.vgf.backend import VgfBackend
from etarm.vgf.compile_spec import VgfCompileSpec


class VgfPartitioner(TOSAPartitioner):
    backend = VgfBackend

    def __init__(self, compile_spec: VgfCompileSpec, additional_checks: list[AdditionalCheck] | None = None):
        if not isinstance(compile_spec, VgfCompileSpec):
            raise TypeError(f"VgfPartitioner needs a VgfCompileSpec, not {type(compile_spec).__name__}")
        self.requested_spec = compile_spec
        super().__init__(compile_spec, additional_checks)

    def _resolve_profile(self, program: ExportedProgram) -> None:
        self.compile_spec = self.requested_spec.for_program(program)
        self.delegation_spec = DelegationSpec(self.backend.__name__, self.compile_spec.to_list())

    def ops_to_not_decompose(self, ep: ExportedProgram):
        self._resolve_profile(ep)
        return super().ops_to_not_decompose(ep)

    def partition(self, exported_program: ExportedProgram):
        self._resolve_profile(exported_program)
        return super().partition(exported_program)
