"""The compile flow: nn.Module -> export -> (quantize) -> partition + lower -> .pte + report."""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import time

import torch
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.exir.lowered_backend_module import get_lowered_submodules

from etarm.errors import EtarmError
from etarm.operators.registry import op_name
from etarm.targets import make_partitioner


@dataclasses.dataclass
class CompileResult:
    pte: bytes
    report: dict


class _Timer:
    def __init__(self):
        self.stages: dict[str, float] = {}

    @contextlib.contextmanager
    def stage(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.stages[name] = round(time.perf_counter() - start, 4)


def _fake_io(fake) -> dict:
    return {"dtype": str(fake.dtype).replace("torch.", ""), "shape": list(fake.shape)}


def _partitions(edge_program) -> list[dict]:
    partitions = []
    for _name, lowered, _node in get_lowered_submodules(edge_program.graph_module):
        original = lowered.original_module
        ops = sorted(
            {
                op_name(n.target)
                for n in original.graph.nodes
                if n.op == "call_function" and n.target is not operator.getitem
            }
        )
        info = dict(lowered.meta.get("_delegate_info_meta") or {})
        partitions.append(
            {"backend": lowered.backend_id, "aten_ops": ops, "payload_bytes": len(lowered.processed_bytes), **info}
        )
    return partitions


def _cpu_ops(edge_program, rejections: dict[str, tuple[str, str]], delegate: bool) -> list[dict]:
    left = []
    for node in edge_program.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        name = op_name(node.target)
        if name == "executorch_call_delegate":
            continue
        if not delegate:
            reason = "delegation disabled (--no-delegate)"
        elif node.name in rejections:
            reason = rejections[node.name][1]
        else:
            reason = "not placed in a partition"
        left.append({"node": node.name, "op": name, "reason": reason})
    return left


def compile_model(
    model: torch.nn.Module,
    example_inputs: tuple,
    target: str,
    *,
    quantize: bool = False,
    delegate: bool = True,
    intermediates_dir: str | None = None,
) -> CompileResult:
    """Compiles ``model`` for ``target``; the report follows the contract in DESIGN.md."""
    timer = _Timer()
    partitioner = make_partitioner(target, intermediates_dir)
    if quantize:
        raise EtarmError("quantization (-q) is not available for this target yet")
    with timer.stage("export"):
        try:
            exported = torch.export.export(model.eval(), example_inputs, strict=False)
        except Exception as exc:
            raise EtarmError(f"torch.export failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
    with timer.stage("lower"):
        edge = to_edge_transform_and_lower(
            exported,
            partitioner=[partitioner] if delegate else [],
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
        )
    edge_program = edge.exported_program()
    with timer.stage("to_executorch"):
        executorch_program = edge.to_executorch(ExecutorchBackendConfig(extract_delegate_segments=True))
        pte = executorch_program.buffer
    report = {
        "target": target,
        "quantized": quantize,
        "delegated": delegate,
        "inputs": [_fake_io(t) for t in example_inputs],
        "partitions": _partitions(edge_program),
        "cpu_ops": _cpu_ops(edge_program, partitioner.rejections, delegate),
        "pte_bytes": len(pte),
        "timings_s": timer.stages,
    }
    return CompileResult(pte=pte, report=report)
