"""TosaCompileSpec: what a TOSA-emitting backend is asked to produce."""

from __future__ import annotations

import dataclasses

from executorch.exir.backend.compile_spec_schema import CompileSpec

from etarm.passes.base import Pipeline
from etarm.tosa.pipeline import tosa_pipeline
from etarm.tosa_ir.specification import TosaSpecification

TOSA_SPEC_KEY = "tosa_spec"
INTERMEDIATES_KEY = "intermediates_dir"


@dataclasses.dataclass
class TosaCompileSpec:
    tosa_spec: TosaSpecification
    intermediates_dir: str | None = None

    def __init__(self, tosa_spec: TosaSpecification | str, intermediates_dir: str | None = None):
        if isinstance(tosa_spec, str):
            tosa_spec = TosaSpecification.create_from_string(tosa_spec)
        self.tosa_spec = tosa_spec
        self.intermediates_dir = intermediates_dir

    def dump_intermediate_artifacts_to(self, path: str | None) -> "TosaCompileSpec":
        self.intermediates_dir = path
        return self

    def pipeline(self) -> Pipeline:
        return tosa_pipeline(self.tosa_spec)

    def to_list(self) -> list[CompileSpec]:
        """The key/value form ExecuTorch hands to BackendDetails.preprocess."""
        specs = [CompileSpec(TOSA_SPEC_KEY, str(self.tosa_spec).encode())]
        if self.intermediates_dir:
            specs.append(CompileSpec(INTERMEDIATES_KEY, self.intermediates_dir.encode()))
        return specs

    @staticmethod
    def from_list(specs: list[CompileSpec]) -> "TosaCompileSpec":
        values = {s.key: s.value.decode() for s in specs}
        return TosaCompileSpec(values[TOSA_SPEC_KEY], values.get(INTERMEDIATES_KEY))
