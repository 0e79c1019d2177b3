"""Lowers a delegated partition (an edge ExportedProgram) to a TOSA flatbuffer."""

from __future__ import annotations

import dataclasses
import operator

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

import etarm.operators  # noqa: F401  (registers every visitor)
from etarm.errors import EtarmError
from etarm.lowering.registry import visitor_for
from etarm.op_names import op_name
from etarm.passes.base import Pipeline, Stage
from etarm.tosa_ir.graph import TosaGraph
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import has_output_qparams, output_qparams
from etarm.tosa_ir.specification import TosaSpecification


@dataclasses.dataclass
class TosaLowering:
    flatbuffer: bytes
    inputs: list[dict]
    outputs: list[dict]
    tosa_ops: list[str]
    # The graph after clean-up (ops carry their fx origin): for target-specific checks.
    graph: TosaGraph | None = None


def _io_entry(node: torch.fx.Node) -> dict:
    fake = node.meta["val"]
    entry = {"name": node.name, "dtype": str(fake.dtype).replace("torch.", ""), "shape": list(fake.shape)}
    if has_output_qparams(node):  # INT profile: the integer tensor's scale and zero point
        entry.update(output_qparams(node).report())
    return entry


def _constant_value(program: ExportedProgram, node: torch.fx.Node) -> torch.Tensor | None:
    spec = next((s for s in program.graph_signature.input_specs if s.arg.name == node.name), None)
    if spec is None or spec.kind == InputKind.USER_INPUT:
        return None
    if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
        return program.state_dict[spec.target] if spec.target in program.state_dict else program.constants[spec.target]
    if spec.kind == InputKind.CONSTANT_TENSOR:
        return program.constants[spec.target]
    raise EtarmError(f"unsupported graph input kind {spec.kind} for {node.name}")


def lower_to_tosa(
    program: ExportedProgram, spec: TosaSpecification, pipeline: Pipeline, int16_internals: bool | None = None
) -> TosaLowering:
    """Runs ``pipeline``'s partition passes, visits every node, then its TOSA passes.

    ``int16_internals``: see TosaGraph (default: whether ``spec`` has the int16 extension).
    """
    program = pipeline.run_program(Stage.PARTITION, program)
    graph = TosaGraph(spec, int16_internals)
    inputs, outputs = [], []
    for node in program.graph.nodes:
        if node.op == "placeholder":
            value = _constant_value(program, node)
            if value is not None:
                graph.bind_const(node, value)
            else:
                fake = node.meta["val"]
                graph.add_input(node, tuple(fake.shape), tosa_dtype(fake.dtype))
                inputs.append(_io_entry(node))
        elif node.op == "call_function":
            if node.target is operator.getitem:
                source, index = node.args
                graph.bind(node, graph.value_of_item(source, index))
                continue
            visitor = visitor_for(node)
            if visitor is None:
                raise EtarmError(f"internal: {op_name(node.target)} reached TOSA lowering without a visitor")
            graph.origin = node.name
            visitor.define(node, graph)
            graph.origin = None
        elif node.op == "output":
            for result in node.args[0]:
                graph.mark_output(graph.value(result))
                outputs.append(_io_entry(result))
    pipeline.run_tosa(Stage.TOSA, graph)
    flatbuffer = graph.serialize()
    return TosaLowering(flatbuffer, inputs, outputs, graph.emitted_ops(), graph)
