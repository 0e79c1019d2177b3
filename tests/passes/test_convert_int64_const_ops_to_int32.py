"""ConvertInt64ConstOpsToInt32Pass: int64 constants and creation ops whose values fit int32 make int32."""

import pytest
import torch

from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
from etarm.testing.edge_programs import TableFn, assert_same_as_module, calls, casts, cpu_only, dtype, edge_program


def test_arange_feeding_embedding_becomes_int32():
    module = TableFn(lambda m, x: m.table(torch.arange(x.shape[0])) * x[:, None])
    inputs = (torch.randn(5),)
    program = edge_program(module, inputs, [ConvertInt64ConstOpsToInt32Pass()])
    (arange,) = calls(program, "aten.arange.start_step")
    assert arange.kwargs["dtype"] == torch.int32 and dtype(arange) == torch.int32
    (embedding,) = calls(program, "aten.embedding.default")
    assert embedding.args[1] is arange
    assert not casts(program)
    assert_same_as_module(program, module, inputs)


def test_full_out_of_int32_range_is_left_int64():
    # The embedding would read an int32 value; it is never run (the index is out of range anyway).
    module = TableFn(lambda m, x: m.table(torch.full((2,), 2**40, dtype=torch.long)) * x)
    program = edge_program(module, (torch.randn(2, 3),), [ConvertInt64ConstOpsToInt32Pass()])
    (full,) = calls(program, "aten.full.default")
    assert full.kwargs["dtype"] == torch.int64 and dtype(full) == torch.int64
    assert not casts(program)


def test_constant_only_needed_as_int64_is_reverted():
    # full's users all need int64 (a CPU op and the graph output): narrowing it would only add casts.
    module = TableFn(lambda m, x: (torch.full((3,), 7, dtype=torch.long), cpu_only(torch.full((3,), 5, dtype=torch.long)) + x))
    inputs = (torch.tensor([1, 2, 3]),)
    program = edge_program(module, inputs, [ConvertInt64ConstOpsToInt32Pass()])
    assert all(dtype(n) == torch.int64 for n in calls(program, "aten.full.default"))
    assert not casts(program)


def test_cpu_consumer_gets_a_cast_back_to_int64():
    module = TableFn(lambda m, x: (lambda p: (m.table(p) * x, cpu_only(p)))(torch.arange(4)))
    inputs = (torch.randn(4, 3),)
    program = edge_program(module, inputs, [ConvertInt64ConstOpsToInt32Pass()])
    (arange,) = calls(program, "aten.arange.start_step")
    assert dtype(arange) == torch.int32
    (cpu,) = [n for n in program.graph.nodes if n.op == "call_function" and "cpu_only" in str(n.target)]
    (restore,) = casts(program)
    assert restore.args[0] is arange and restore.kwargs["dtype"] == torch.int64 and dtype(restore) == torch.int64
    assert cpu.args[0] is restore and restore.next is cpu  # local: right before its consumer
    assert dtype(cpu) == torch.int64
    assert calls(program, "aten.embedding.default")[0].args[1] is arange
    assert_same_as_module(program, module, inputs)


def lifted_index(program):
    """The lifted constant placeholder the embedding reads (through a clone, if any)."""
    (embedding,) = calls(program, "aten.embedding.default")
    index = embedding.args[1]
    while index.op != "placeholder":
        index = index.args[0]
    spec = next(s for s in program.graph_signature.input_specs if s.arg.name == index.name)
    return index, {**program.constants, **program.state_dict}[spec.target]


def test_lifted_constants_are_narrowed_when_they_fit():
    indices = torch.tensor([3, 1, 4])
    module = TableFn(lambda m, x: m.table(indices) * x)
    inputs = (torch.randn(3, 3),)
    program = edge_program(module, inputs, [ConvertInt64ConstOpsToInt32Pass()])
    placeholder, stored = lifted_index(program)
    assert dtype(placeholder) == torch.int32
    assert stored.dtype == torch.int32 and stored.tolist() == [3, 1, 4]
    assert_same_as_module(program, module, inputs)


def test_lifted_constants_out_of_int32_range_are_left_int64():
    indices = torch.tensor([2**33, 1])
    module = TableFn(lambda m, x: m.table(indices) * x)
    program = edge_program(module, (torch.randn(2, 3),), [ConvertInt64ConstOpsToInt32Pass()])
    placeholder, stored = lifted_index(program)
    assert dtype(placeholder) == torch.int64
    assert stored.dtype == torch.int64 and stored.tolist() == [2**33, 1]


CREATIONS = {
    "zeros": (lambda: torch.zeros(4, dtype=torch.long), "aten.zeros.default"),
    "ones": (lambda: torch.ones(2, 3, dtype=torch.long), "aten.ones.default"),
    "full": (lambda: torch.full((3,), 5, dtype=torch.long), "aten.full.default"),
    "eye": (lambda: torch.eye(3, dtype=torch.long), "aten.eye.default"),
    "eye_m": (lambda: torch.eye(2, 4, dtype=torch.long), "aten.eye.m"),
    "linspace": (lambda: torch.linspace(0, 15, 4, dtype=torch.long), "aten.linspace.default"),
    "scalar_tensor": (lambda: torch.scalar_tensor(9, dtype=torch.long), "aten.scalar_tensor.default"),
    "arange_step": (lambda: torch.arange(1, 15, 3), "aten.arange.start_step"),
}


@pytest.mark.parametrize("name", CREATIONS)
def test_creation_ops_on_the_aten_graph(name):
    # torch.export's ATen graph still has these ops whole (the edge graph decomposes most of them).
    make, op = CREATIONS[name]
    module = TableFn(lambda m, x: m.table(make()) * x)
    inputs = (torch.tensor(2.0),)
    program = torch.export.export(module, inputs, strict=False)
    result = ConvertInt64ConstOpsToInt32Pass()(program)
    assert result.modified
    (node,) = calls(program, op)
    assert node.kwargs["dtype"] == torch.int32 and dtype(node) == torch.int32
    assert not casts(program)
    assert_same_as_module(program, module, inputs)
