"""VgfBackend: TOSA lowering, then the ML SDK model converter; the .vgf file is the payload.

    partition --lower_to_tosa--> TOSA 1.0 graph (.tosa) --model-converter--> .vgf (magic VGF1)

The payload is the raw VGF file, as ExecuTorch's VGF runtime reads it, under the backend
id ``VgfBackend``. Before it is accepted, the file's graph inputs and outputs are read
back (vgf_file.py) and must match the partition's dtypes and shapes.

With an intermediates directory (``-i DIR``) the .tosa and the .vgf stay there
(``partition_<n>.tosa``, ``partition_<n>.vgf``). Without one they go to a temporary
directory, removed after a conversion and kept when the converter fails, so that the
command in the error reproduces the failure.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import tempfile
import time
from typing import final

from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import ExportedProgram

from etarm import progress
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import Stage
from etarm.tosa.backend import next_artifact_name, partition_info
from etarm.tosa.lowering import lower_to_tosa
from etarm.vgf.compile_spec import VgfCompileSpec
from etarm.vgf.model_converter import ConverterError, convert, converter_version
from etarm.vgf.vgf_file import io_mismatches, read_vgf

# How many of a partition's operators an error names.
_NAMED_OPS = 4


def _describe(stem: str, program: ExportedProgram, kept: bool) -> str:
    ops = sorted({op_name(n.target) for n in program.graph.nodes if n.op == "call_function"})
    shown = ", ".join(ops[:_NAMED_OPS]) + (f" and {len(ops) - _NAMED_OPS} more" if len(ops) > _NAMED_OPS else "")
    return f"{stem if kept else 'the partition'} ({shown})"


@dataclasses.dataclass(frozen=True)
class _Converted:
    data: bytes
    seconds: float
    # Where -i keeps the .tosa and the .vgf (None without an intermediates directory).
    tosa_file: str | None
    vgf_file: str | None


def _convert(flatbuffer: bytes, spec: VgfCompileSpec, stem: str, program: ExportedProgram) -> _Converted:
    directory = spec.intermediates_dir
    work = directory or tempfile.mkdtemp(prefix="etarm_vgf_")
    os.makedirs(work, exist_ok=True)
    tosa_path, vgf_path = os.path.join(work, f"{stem}.tosa"), os.path.join(work, f"{stem}.vgf")
    with open(tosa_path, "wb") as f:
        f.write(flatbuffer)
    try:
        with progress.current().step(f"model-converter: {stem}"):
            seconds = convert(tosa_path, vgf_path, spec.compiler_flags)
    except ConverterError as exc:  # the .tosa stays where the command points
        raise ConverterError(
            f"model-converter failed on {_describe(stem, program, bool(directory))}: {exc.reason}; "
            f"reproduce with: {shlex.join(exc.command)}",
            exc.command,
        ) from None
    with open(vgf_path, "rb") as f:
        data = f.read()
    if directory:
        return _Converted(data, seconds, tosa_path, vgf_path)
    shutil.rmtree(work, ignore_errors=True)
    return _Converted(data, seconds, None, None)


@final
class VgfBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        spec = VgfCompileSpec.from_list(compile_specs)
        start = time.perf_counter()
        pipeline = spec.pipeline()
        lowering = lower_to_tosa(edge_program, spec.tosa_spec, pipeline)
        rewrites = pipeline.run_tosa(Stage.BACKEND, lowering.graph)
        if rewrites:
            graph = lowering.graph
            lowering = dataclasses.replace(lowering, flatbuffer=graph.serialize(), tosa_ops=graph.emitted_ops())
        lowering_seconds = time.perf_counter() - start
        stem = next_artifact_name(spec.intermediates_dir, ".tosa")[: -len(".tosa")]
        converted = _convert(lowering.flatbuffer, spec, stem, edge_program)
        contents = read_vgf(converted.data)
        mismatches = io_mismatches(contents, lowering.inputs, lowering.outputs)
        if mismatches:
            flags = f" (converter flags: {shlex.join(spec.compiler_flags)})" if spec.compiler_flags else ""
            raise EtarmError(
                f"the VGF of {_describe(stem, edge_program, bool(spec.intermediates_dir))} does not match the "
                f"partition{flags}: " + "; ".join(mismatches)
            )
        info = partition_info(
            lowering,
            lowering_seconds,
            tosa_file=converted.tosa_file,
            vgf_file=converted.vgf_file,
            vgf={
                "converter_version": converter_version(),
                "backend_rewrites": rewrites,
                "converter_flags": list(spec.compiler_flags),
                "converter_seconds": round(converted.seconds, 4),
                "vgf_bytes": len(converted.data),
                "vgf_version": contents.version,
                "segments": [dict(segment) for segment in contents.segments],
                "constants": contents.constants,
            },
        )
        return PreprocessResult(processed_bytes=converted.data, _delegate_info_meta=info)
