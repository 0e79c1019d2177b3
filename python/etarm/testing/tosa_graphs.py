"""Small TOSA graphs built by hand in tests, and compiling them with Vela."""

from __future__ import annotations

import os

import tosa_serializer as ts

from etarm.ethosu.compile_spec import EthosUCompileSpec
from etarm.ethosu.vela import VelaOutput, run_vela
from etarm.pte import delegate_payloads
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.specification import TosaSpecification


def int16_graph() -> TosaGraph:
    """An empty graph for the INT profile with the int16 extension."""
    return TosaGraph(TosaSpecification.create_from_string("TOSA-1.0+INT+int16"))


def graph_input(graph: TosaGraph, shape, dtype=ts.DType.INT8, name: str = "x") -> TosaTensor:
    """A new input tensor of ``graph``."""
    tensor = graph.temp(shape, dtype, stem=name)
    graph.inputs.append(tensor.name)
    return tensor


def _vela(flatbuffer: bytes, spec: EthosUCompileSpec, directory) -> VelaOutput:
    path = os.path.join(directory, "g.tosa")
    with open(path, "wb") as f:
        f.write(flatbuffer)
    return run_vela(path, spec, str(directory))


def compile_with_vela(graph: TosaGraph, spec: EthosUCompileSpec, directory) -> VelaOutput:
    """Vela's output for ``graph``, written to ``directory``; raises VelaError if Vela refuses it."""
    return _vela(graph.serialize(), spec, directory)


def compile_pte_partition_with_vela(pte: bytes, targets, directory) -> None:
    """Vela compiles the one TOSA partition of ``pte`` for each Ethos-U target; raises
    VelaError if it refuses it for one."""

    (payload,) = delegate_payloads(pte)
    for target in targets:
        _vela(payload.data, EthosUCompileSpec(target), directory)
