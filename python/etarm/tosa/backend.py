"""TOSABackend: the delegate whose payload is the TOSA flatbuffer itself."""

from __future__ import annotations

import os
import time
from typing import final

from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import ExportedProgram

from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.lowering import TosaLowering, lower_to_tosa


def partition_info(lowering: TosaLowering, seconds: float, **extra) -> dict:
    """What the report says about one partition; it travels in the lowered module's meta."""
    return {
        "tosa_ops": lowering.tosa_ops,
        "inputs": lowering.inputs,
        "outputs": lowering.outputs,
        "tosa_bytes": len(lowering.flatbuffer),
        "lowering_seconds": round(seconds, 4),
        # Per TOSA operator, the fx node whose visitor emitted it (compile_model's debug map).
        "tosa_op_origins": [op.origin for op in lowering.graph.ops] if lowering.graph else [],
        **extra,
    }


def save_intermediate(directory: str | None, name: str, data: bytes) -> str | None:
    if not directory:
        return None
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def next_artifact_name(directory: str | None, suffix: str) -> str:
    """partition_<n><suffix>, numbered in lowering order within ``directory``."""
    index = 0
    while directory and os.path.exists(os.path.join(directory, f"partition_{index}{suffix}")):
        index += 1
    return f"partition_{index}{suffix}"


@final
class TOSABackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        spec = TosaCompileSpec.from_list(compile_specs)
        start = time.perf_counter()
        lowering = lower_to_tosa(edge_program, spec.tosa_spec, spec.pipeline())
        name = next_artifact_name(spec.intermediates_dir, ".tosa")
        saved = save_intermediate(spec.intermediates_dir, name, lowering.flatbuffer)
        info = partition_info(lowering, time.perf_counter() - start, tosa_file=saved)
        return PreprocessResult(processed_bytes=lowering.flatbuffer, _delegate_info_meta=info)
