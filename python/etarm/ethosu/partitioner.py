"""EthosUPartitioner: the TOSA partitioner plus what the chosen Ethos-U family can run.

    partitioner = EthosUPartitioner(EthosUCompileSpec("ethos-u55-128"))

A node is delegated when TOSA INT can express it (the registry's checks and the
quantized-region rules of the TOSA partitioner) and the NPU family runs it
(ethosu/operator_support.py); ``additional_checks`` add the user's own rules. Every
node left on CPU keeps its reason in ``partitioner.rejections`` (and the report).
"""

from __future__ import annotations

from torch.export import ExportedProgram

from etarm.ethosu.backend import EthosUBackend
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.operator_support import Target, constant_names, node_reason
from etarm.tosa.partitioner import AdditionalCheck, TOSAPartitioner


class EthosUPartitioner(TOSAPartitioner):
    backend = EthosUBackend

    def __init__(self, compile_spec: EthosUCompileSpec, additional_checks: list[AdditionalCheck] | None = None):
        if not isinstance(compile_spec, EthosUCompileSpec):
            raise TypeError(f"EthosUPartitioner needs an EthosUCompileSpec, not {type(compile_spec).__name__}")
        self.npu = Target(compile_spec.family.key)
        checks = [self._npu_check, *(additional_checks or [])]
        super().__init__(compile_spec, checks)

    def _npu_check(self, node, _tosa_spec) -> str | None:
        reason = node_reason(node, self.npu)
        return f"{self.compile_spec.target}: {reason}" if reason else None

    def _know_constants(self, program: ExportedProgram) -> None:
        self.npu.constants = constant_names(program)

    def ops_to_not_decompose(self, ep: ExportedProgram):
        self._know_constants(ep)
        return super().ops_to_not_decompose(ep)

    def partition(self, exported_program: ExportedProgram):
        self._know_constants(exported_program)
        return super().partition(exported_program)
