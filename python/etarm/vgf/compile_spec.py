"""VgfCompileSpec: the TOSA profile a VGF partition is lowered with and the model converter's flags.

    spec = VgfCompileSpec("TOSA-1.0+INT")                       # quantized models
    spec = VgfCompileSpec("TOSA-1.0+FP", compiler_flags=["--emit-debug-info"])
    spec = VgfCompileSpec()                                     # TOSA-1.0+FP+INT+int4+int16

The specification strings are the ExecuTorch Arm backend's (FP, INT, INT+int16, and
both profiles at once, its default). etarm lowers each program with one profile: a spec
naming both is resolved per program by ``for_program`` (INT for a quantized program,
FP otherwise).

``compiler_flags`` go to model-converter unchanged, except the flags the backend sets
itself (input and output) and those that would change the payload the VGF delegate
reads: ``--tosa-flatbuffer`` (a TOSA file instead of a VGF) and ``--type-narrowing``
(fp16 graph inputs and outputs, which the delegate does not convert).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from typing import Sequence

from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import ExportedProgram

from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import Pipeline
from etarm.tosa_ir.specification import EXTENSIONS, TosaSpecification
from etarm.vgf.pipeline import vgf_pipeline

# The ExecuTorch Arm backend's default (executorch 1.5.1).
DEFAULT_TOSA_SPEC = "TOSA-1.0+FP+INT+int4+int16"
TOSA_SPEC_KEY = "tosa_spec"
FLAGS_KEY = "vgf_compiler_flags"
INTERMEDIATES_KEY = "intermediates_dir"
TARGET_NAME = "vgf"
# The TOSA specification -t vgf lowers float ("FP") and quantized ("INT", -q) models with, as
# the ExecuTorch Arm backend's aot_arm_compiler does.
PROFILE_SPECS = {"FP": "TOSA-1.0+FP", "INT": "TOSA-1.0+INT"}

# model-converter options the backend passes itself.
_MANAGED_FLAGS = ("-i", "--input", "-o", "--output")
# Options that change what the delegate receives, and why each is refused.
_REFUSED_FLAGS = {
    "--tosa-flatbuffer": "it writes a TOSA flatbuffer instead of the VGF file the delegate runs",
    "--type-narrowing": "it makes the graph's inputs and outputs fp16, which the VGF delegate does not convert",
}
# --type-narrowing's value that narrows nothing.
_NO_NARROWING = "none"


def _flags(compiler_flags) -> tuple[str, ...]:
    if compiler_flags is None:
        return ()
    flags = shlex.split(compiler_flags) if isinstance(compiler_flags, str) else [str(f) for f in compiler_flags]
    words = iter(flags)
    for flag in words:
        name, has_value, value = flag.partition("=")
        if name in _MANAGED_FLAGS:
            raise EtarmError(
                f"compiler_flags may not set {flag}: the VGF backend passes the converter's input and output"
            )
        if name == "--type-narrowing":
            value = value if has_value else next(words, "")
            if value == _NO_NARROWING:
                continue
        if name in _REFUSED_FLAGS:
            raise EtarmError(f"compiler_flags may not set {flag}: {_REFUSED_FLAGS[name]}")
    return tuple(flags)


def _with_profile(spec: TosaSpecification, profile: str) -> TosaSpecification:
    """``spec`` with one profile and the extensions that profile (or none) needs."""
    extensions = frozenset(e for e in spec.extensions if EXTENSIONS[e] in (profile, None))
    return dataclasses.replace(spec, profiles=frozenset({profile}), extensions=extensions)


def is_quantized(program: ExportedProgram) -> bool:
    """Whether the program holds PT2E quantize/dequantize nodes (convert_pt2e's output)."""
    return any(
        node.op == "call_function" and "quantized_decomposed" in op_name(node.target) for node in program.graph.nodes
    )


@dataclasses.dataclass
class VgfCompileSpec:
    tosa_spec: TosaSpecification
    compiler_flags: tuple[str, ...]
    intermediates_dir: str | None = None

    def __init__(
        self,
        tosa_spec: TosaSpecification | str | None = None,
        compiler_flags: "Sequence[str] | str | None" = None,
        intermediates_dir: str | None = None,
    ):
        if tosa_spec is None:
            tosa_spec = DEFAULT_TOSA_SPEC
        if isinstance(tosa_spec, str):
            tosa_spec = TosaSpecification.create_from_string(tosa_spec)
        if not isinstance(tosa_spec, TosaSpecification):
            raise EtarmError(f"VgfCompileSpec needs a TOSA specification, not {type(tosa_spec).__name__}")
        self.tosa_spec = tosa_spec
        self.compiler_flags = _flags(compiler_flags)
        self.intermediates_dir = intermediates_dir

    @property
    def target(self) -> str:
        return TARGET_NAME

    def dump_intermediate_artifacts_to(self, path: str | None) -> "VgfCompileSpec":
        self.intermediates_dir = path
        return self

    def pipeline(self) -> Pipeline:
        return vgf_pipeline(self.target, self.tosa_spec)

    def with_profile(self, profile: str) -> "VgfCompileSpec":
        return VgfCompileSpec(_with_profile(self.tosa_spec, profile), self.compiler_flags, self.intermediates_dir)

    def for_program(self, program: ExportedProgram) -> "VgfCompileSpec":
        """The one-profile spec ``program`` is lowered with: INT when it is quantized, else FP."""
        if not (self.tosa_spec.supports_fp() and self.tosa_spec.supports_int()):
            return self
        return self.with_profile("INT" if is_quantized(program) else "FP")

    # --- ExecuTorch's key/value form ----------------------------------------------------
    def to_list(self) -> list[CompileSpec]:
        specs = [
            CompileSpec(TOSA_SPEC_KEY, str(self.tosa_spec).encode()),
            CompileSpec(FLAGS_KEY, json.dumps(list(self.compiler_flags)).encode()),
        ]
        if self.intermediates_dir:
            specs.append(CompileSpec(INTERMEDIATES_KEY, self.intermediates_dir.encode()))
        return specs

    @staticmethod
    def from_list(specs: list[CompileSpec]) -> "VgfCompileSpec":
        values = {s.key: s.value.decode() for s in specs}
        if FLAGS_KEY not in values or TOSA_SPEC_KEY not in values:
            raise EtarmError("compile specs hold no VGF settings (not made by VgfCompileSpec.to_list)")
        return VgfCompileSpec(values[TOSA_SPEC_KEY], json.loads(values[FLAGS_KEY]), values.get(INTERMEDIATES_KEY))
