"""EthosUBackend: TOSA INT lowering, then Vela, then the Ethos-U payload.

    partition --lower_to_tosa--> TOSA 1.0 INT graph --NPU rewrites, Ethos-U checks--> .tosa
              --Vela 5.2.0--> command stream + weights + scratch sizes + I/O placement
              --payload.py--> vela_bin_stream blocks (docs/payload_formats.md)

With an intermediates directory (``-i DIR``) the .tosa, Vela's outputs
(``partition_<n>_vela.npz``, ``partition_<n>_summary_<system>.csv``) and the payload
(``partition_<n>.ethosu.bin``) stay there.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tempfile
import time
from typing import final

from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import ExportedProgram

from etarm import progress
from etarm.errors import EtarmError
from etarm.ethosu import npu_rules
from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.payload import EthosUPayload, TensorPlacement
from etarm.ethosu.tosa_checks import Violation, check_graph
from etarm.ethosu.vela import VelaError, VelaOutput, VelaTensor, run_vela
from etarm.op_names import op_name
from etarm.passes.base import Stage
from etarm.tosa.backend import next_artifact_name, partition_info, save_intermediate
from etarm.tosa.lowering import lower_to_tosa
from etarm.tosa_ir.graph import TosaGraph


def _node_ops(program: ExportedProgram) -> dict[str, str]:
    return {n.name: op_name(n.target) for n in program.graph.nodes if n.op == "call_function"}


def _describe_origin(origin: str | None, node_ops: dict[str, str]) -> str:
    if origin is None:
        return "a layout change etarm inserted"
    return f"{node_ops.get(origin, 'an operator')} (node '{origin}')"


def violations_message(violations: list[Violation], spec: EthosUCompileSpec, node_ops: dict[str, str]) -> str:
    lines = [f"{spec.target} cannot run this partition:"]
    for v in violations[:10]:
        lines.append(f"  TOSA {v.tosa_op} from {_describe_origin(v.origin, node_ops)}: {v.reason}")
    if len(violations) > 10:
        lines.append(f"  ... and {len(violations) - 10} more")
    lines.append("Keep such ops on CPU with EthosUPartitioner(additional_checks=...) or report the missing support check.")
    return "\n".join(lines)


def _normalise(name: str) -> str:
    return name.replace("_", "").lower()


def _vela_op_type(message: str) -> str | None:
    """The operator type Vela names: "... operation (MatMul) could not ..." or "error: Conv2D: ..."."""
    match = re.search(r"\(([A-Za-z][A-Za-z0-9]*)\)", message) or re.search(r"error:?;?\s*([A-Za-z][A-Za-z0-9]*):", message)
    return match.group(1) if match else None


def vela_failure_message(error: VelaError, graph: TosaGraph, spec: EthosUCompileSpec, node_ops: dict[str, str]) -> str:
    """Vela's reason, plus the ATen nodes whose TOSA operators are of the type Vela names."""
    text = f"Vela {spec.target} ({spec.system_config}, {spec.memory_mode}) failed: {error}"
    vela_type = _vela_op_type(str(error))
    if vela_type is None:
        return text
    wanted = _normalise(vela_type)
    candidates = [op for op in graph.ops if _normalise(op.op.name) == wanted]
    candidates = candidates or [op for op in graph.ops if _normalise(op.op.name).startswith(wanted)]
    origins = sorted({_describe_origin(op.origin, node_ops) for op in candidates})
    if origins:
        return f"{text}\n  the {vela_type} comes from: " + "; ".join(origins)
    ops = ", ".join(sorted(set(node_ops.values())))
    return f"{text}\n  Vela inserted the {vela_type} while lowering this partition (its ATen ops: {ops})"


def _placement(vela: VelaTensor, entry: dict, what: str) -> TensorPlacement:
    placement = TensorPlacement(tuple(entry["shape"]), entry["dtype"], vela.offset, vela.region)
    if vela.elem_size != placement.elem_size or math.prod(vela.shape) != math.prod(placement.shape):
        raise EtarmError(
            f"internal: Vela placed {what} '{entry['name']}' as {list(vela.shape)} x {vela.elem_size} bytes, "
            f"but the partition has {entry['shape']} {entry['dtype']}"
        )
    return placement


def build_payload(vela: VelaOutput, inputs: list[dict], outputs: list[dict]) -> EthosUPayload:
    if len(vela.inputs) != len(inputs) or len(vela.outputs) != len(outputs):
        raise EtarmError(
            f"internal: Vela compiled {len(vela.inputs)} inputs/{len(vela.outputs)} outputs "
            f"for a partition with {len(inputs)}/{len(outputs)}"
        )
    return EthosUPayload(
        cmd_data=vela.cmd_data,
        weight_data=vela.weight_data,
        scratch_size=vela.scratch_size,
        fast_scratch_size=vela.fast_scratch_size,
        inputs=tuple(_placement(v, e, "input") for v, e in zip(vela.inputs, inputs)),
        outputs=tuple(_placement(v, e, "output") for v, e in zip(vela.outputs, outputs)),
    )


@final
class EthosUBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        spec = EthosUCompileSpec.from_list(compile_specs)
        start = time.perf_counter()
        node_ops = _node_ops(edge_program)
        pipeline = spec.pipeline()
        u55_class = npu_rules.is_u55_class(spec.family.key)
        lowering = lower_to_tosa(edge_program, spec.tosa_spec, pipeline, int16_internals=not u55_class)
        rewrites = pipeline.run_tosa(Stage.BACKEND, lowering.graph)
        if rewrites:
            graph = lowering.graph
            lowering = dataclasses.replace(lowering, flatbuffer=graph.serialize(), tosa_ops=graph.emitted_ops())
        lowering_seconds = time.perf_counter() - start
        node_ops.update(_node_ops(edge_program))
        directory = spec.intermediates_dir
        name = next_artifact_name(directory, ".tosa")
        with tempfile.TemporaryDirectory(prefix="etarm_vela_") as scratch:
            out_dir = directory or scratch
            os.makedirs(out_dir, exist_ok=True)
            tosa_path = os.path.join(out_dir, name)
            with open(tosa_path, "wb") as f:
                f.write(lowering.flatbuffer)
            violations = check_graph(lowering.graph, spec.family.key)
            if violations:
                raise EtarmError(violations_message(violations, spec, node_ops))
            try:
                with progress.current().step(f"Vela for {spec.target}: {name}"):
                    vela = run_vela(tosa_path, spec, out_dir)
            except VelaError as exc:
                raise VelaError(vela_failure_message(exc, lowering.graph, spec, node_ops)) from None
        payload = build_payload(vela, lowering.inputs, lowering.outputs)
        data = payload.to_bytes()
        stem = name[: -len(".tosa")]
        saved_payload = save_intermediate(directory, f"{stem}.ethosu.bin", data)
        info = partition_info(
            lowering,
            lowering_seconds,
            tosa_file=tosa_path if directory else None,
            payload_file=saved_payload,
            vela=vela.estimates,
            npu_rewrites=rewrites,
            npu_operations=vela.npu_operations,
        )
        return PreprocessResult(processed_bytes=data, _delegate_info_meta=info)
