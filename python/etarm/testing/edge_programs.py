"""Edge programs for the pass tests: built with the passes under test, searched, compared with their module.

- ``edge_program``: a module exported and lowered to edge with some transform passes (no
  partitioning), the program a ProgramPass meets in the flow;
- ``quantized_partition`` and ``as_partition``: a PT2E-quantized model's edge program as the
  INT partitioner hands it to the partition passes (``ConvRelu``: one to quantize);
- ``calls``, ``only_call``, ``casts``, ``user_inputs``, ``output_nodes``, ``dtype``: finding nodes;
- ``assert_same_as_module``: the rewritten program still computes what the module does;
- ``TableFn`` and ``cpu_only``: int64 index models (an embedding table, an op that stays on CPU).
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.passes.dtype_casts import aten_name, is_cast
from etarm.tosa_ir.quant_params import is_dequantize, is_quantize


# An op no TOSA visitor lowers: its consumer of an int64 value always stays on CPU.
@torch.library.custom_op("etarm_test::cpu_only", mutates_args=())
def cpu_only(x: torch.Tensor) -> torch.Tensor:
    return x + 1


@cpu_only.register_fake
def _(x):
    return torch.empty_like(x)


class TableFn(torch.nn.Module):
    """``fn(module, *inputs)`` as a module that holds an embedding table (``module.table``)."""

    def __init__(self, fn: Callable, vocab: int = 16, width: int = 3):
        super().__init__()
        self.fn = fn
        self.table = torch.nn.Embedding(vocab, width)

    def forward(self, *args):
        return self.fn(self, *args)


def edge_program(module: torch.nn.Module, inputs: tuple, passes: Sequence = ()) -> ExportedProgram:
    """The edge program after ``passes`` ran as transform_passes (no partitioning)."""
    if not isinstance(module, torch.fx.GraphModule):  # a convert_pt2e'd model refuses eval()
        module = module.eval()
    exported = torch.export.export(module, inputs, strict=False)
    edge = to_edge_transform_and_lower(
        exported, transform_passes=list(passes), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    return edge.exported_program()


def calls(program, name: str | None = None) -> list[torch.fx.Node]:
    """The nodes calling operator ``name`` ('aten.arange.start_step'), ATen or edge alike; every
    call without a name."""
    nodes = [n for n in program.graph.nodes if n.op == "call_function"]
    return [n for n in nodes if name is None or aten_name(n.target) == name]


def only_call(program, name: str) -> torch.fx.Node:
    """The one node calling operator ``name``."""
    (node,) = calls(program, name)
    return node


def casts(program) -> list[torch.fx.Node]:
    return [n for n in program.graph.nodes if is_cast(n)]


def dtype(node: torch.fx.Node) -> torch.dtype:
    return node.meta["val"].dtype


def user_inputs(program: ExportedProgram) -> list[torch.fx.Node]:
    names = [s.arg.name for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    return [n for n in program.graph.nodes if n.name in names]


def output_nodes(program) -> list[torch.fx.Node]:
    return list(program.graph.output_node().args[0])


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def assert_same_as_module(program: ExportedProgram, module: torch.nn.Module, inputs: tuple, atol: float = 0.0) -> None:
    """The rewritten program still computes what the module does, output dtypes included
    (exactly, or within ``atol`` where a pass reorders float arithmetic)."""
    with torch.no_grad():
        got, want = _as_tuple(program.module()(*inputs)), _as_tuple(module(*inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=atol)


class ConvRelu(torch.nn.Module):
    """conv -> relu (fused), a reshape (pass-through) and a multiplication by a number."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.relu(self.conv(x)).reshape(2, -1) * 2.0


def quantized_partition(quantized: torch.fx.GraphModule, inputs: tuple) -> ExportedProgram:
    """A convert_pt2e'd model exported and lowered to edge, as the INT partitioner hands it to
    the partition passes."""
    return as_partition(edge_program(quantized, inputs))


def as_partition(program: ExportedProgram) -> ExportedProgram:
    """The program as the partitioner hands it over: input Q and output DQ nodes on CPU."""
    graph = program.graph
    for n in list(graph.nodes):
        if is_quantize(n) and n.args[0].op == "placeholder":
            n.args[0].meta["val"] = n.meta["val"]  # the placeholder now holds the integers
            n.replace_all_uses_with(n.args[0])
            graph.erase_node(n)
        elif is_dequantize(n) and all(u.op == "output" for u in n.users):
            n.replace_all_uses_with(n.args[0])
            graph.erase_node(n)
    return program
