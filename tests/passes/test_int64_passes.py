"""The int64 edge passes: what each does to the graph, and int64 models end to end on TOSA-1.0+FP."""

import numpy as np
import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from torch.export.graph_signature import InputKind
from torch.fx.passes.infra.pass_base import PassResult

from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.passes import (
    ConvertInt64ConstOpsToInt32Pass,
    ConvertInt64OutputOpsToInt32Pass,
    InsertInt32CastsAfterInt64PlaceholdersPass,
    ToDevicePass,
)
from etarm.passes.dtype_casts import aten_name, is_cast
from etarm.passes.edge_transform_passes import default_transform_passes
from etarm.targets import make_partitioner
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.tosa.graph import TosaGraph
from etarm.tosa.specification import TosaSpecification


# An op no TOSA visitor lowers: its consumer of an int64 value always stays on CPU.
@torch.library.custom_op("etarm_test::cpu_only", mutates_args=())
def cpu_only(x: torch.Tensor) -> torch.Tensor:
    return x + 1


@cpu_only.register_fake
def _(x):
    return torch.empty_like(x)


class Fn(torch.nn.Module):
    def __init__(self, fn, vocab=16, width=3):
        super().__init__()
        self.fn = fn
        self.table = torch.nn.Embedding(vocab, width)

    def forward(self, *args):
        return self.fn(self, *args)


def edge_program(module, inputs, passes):
    """The edge program after ``passes`` ran as transform_passes (no partitioning)."""
    exported = torch.export.export(module.eval(), inputs, strict=False)
    edge = to_edge_transform_and_lower(
        exported, transform_passes=passes, compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    return edge.exported_program()


def calls(program, name):
    return [n for n in program.graph.nodes if n.op == "call_function" and aten_name(n.target) == name]


def casts(program):
    return [n for n in program.graph.nodes if is_cast(n)]


def dtype(node):
    return node.meta["val"].dtype


def user_inputs(program):
    names = [s.arg.name for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    return [n for n in program.graph.nodes if n.name in names]


def output_nodes(program):
    return list(program.graph.output_node().args[0])


def as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def assert_same_as_module(program, module, inputs):
    """The transformed program still computes what the module does, output dtypes included."""
    got, want = as_tuple(program.module()(*inputs)), as_tuple(module(*inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=0)


# --- ConvertInt64ConstOpsToInt32Pass ------------------------------------------------------------


def test_arange_feeding_embedding_becomes_int32():
    module = Fn(lambda m, x: m.table(torch.arange(x.shape[0])) * x[:, None])
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
    module = Fn(lambda m, x: m.table(torch.full((2,), 2**40, dtype=torch.long)) * x)
    program = edge_program(module, (torch.randn(2, 3),), [ConvertInt64ConstOpsToInt32Pass()])
    (full,) = calls(program, "aten.full.default")
    assert full.kwargs["dtype"] == torch.int64 and dtype(full) == torch.int64
    assert not casts(program)


def test_constant_only_needed_as_int64_is_reverted():
    # full's users all need int64 (a CPU op and the graph output): narrowing it would only add casts.
    module = Fn(lambda m, x: (torch.full((3,), 7, dtype=torch.long), cpu_only(torch.full((3,), 5, dtype=torch.long)) + x))
    inputs = (torch.tensor([1, 2, 3]),)
    program = edge_program(module, inputs, [ConvertInt64ConstOpsToInt32Pass()])
    assert all(dtype(n) == torch.int64 for n in calls(program, "aten.full.default"))
    assert not casts(program)


def test_cpu_consumer_gets_a_cast_back_to_int64():
    module = Fn(lambda m, x: (lambda p: (m.table(p) * x, cpu_only(p)))(torch.arange(4)))
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
    module = Fn(lambda m, x: m.table(indices) * x)
    inputs = (torch.randn(3, 3),)
    program = edge_program(module, inputs, [ConvertInt64ConstOpsToInt32Pass()])
    placeholder, stored = lifted_index(program)
    assert dtype(placeholder) == torch.int32
    assert stored.dtype == torch.int32 and stored.tolist() == [3, 1, 4]
    assert_same_as_module(program, module, inputs)


def test_lifted_constants_out_of_int32_range_are_left_int64():
    indices = torch.tensor([2**33, 1])
    module = Fn(lambda m, x: m.table(indices) * x)
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
    module = Fn(lambda m, x: m.table(make()) * x)
    inputs = (torch.tensor(2.0),)
    program = torch.export.export(module, inputs, strict=False)
    result = ConvertInt64ConstOpsToInt32Pass()(program)
    assert result.modified
    (node,) = calls(program, op)
    assert node.kwargs["dtype"] == torch.int32 and dtype(node) == torch.int32
    assert not casts(program)
    assert_same_as_module(program, module, inputs)


# --- ConvertInt64OutputOpsToInt32Pass ------------------------------------------------------------


def test_cast_to_int64_casts_to_int32():
    module = Fn(lambda m, x: m.table(x.long()))
    inputs = (torch.tensor([[1.0, 7.9], [3.2, 15.0]]),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    (cast,) = casts(program)
    assert cast.kwargs["dtype"] == torch.int32 and dtype(cast) == torch.int32
    assert calls(program, "aten.embedding.default")[0].args[1] is cast
    assert_same_as_module(program, module, inputs)


def test_cast_to_int64_returned_stays_int64():
    module = Fn(lambda m, x: x.long())
    inputs = (torch.tensor([1.5, -2.5]),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    (cast,) = casts(program)
    assert cast.kwargs["dtype"] == torch.int64
    assert_same_as_module(program, module, inputs)


def test_argmax_users_read_an_int32_cast():
    module = Fn(lambda m, x: m.table(torch.argmax(x, dim=-1)))
    inputs = (torch.randn(2, 16),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    (argmax,) = calls(program, "aten.argmax.default")
    assert dtype(argmax) == torch.int64  # argmax itself is int64 in torch; TOSA ARGMAX gives int32
    (cast,) = casts(program)
    assert cast.args[0] is argmax and cast.kwargs["dtype"] == torch.int32 and argmax.next is cast
    assert list(argmax.users) == [cast]
    assert calls(program, "aten.embedding.default")[0].args[1] is cast
    assert_same_as_module(program, module, inputs)


def test_index_output_of_max_dim_is_narrowed_and_restored_for_outputs():
    def fn(m, x):
        values, indices = torch.max(x, dim=1)
        return m.table(indices) * values[:, None], indices

    module = Fn(fn)
    inputs = (torch.randn(3, 16),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    narrowing = [c for c in casts(program) if c.kwargs["dtype"] == torch.int32]
    restoring = [c for c in casts(program) if c.kwargs["dtype"] == torch.int64]
    assert len(narrowing) == 1 and len(restoring) == 1
    assert restoring[0].args[0] is narrowing[0]
    assert output_nodes(program)[1] is restoring[0] and dtype(restoring[0]) == torch.int64
    assert calls(program, "aten.embedding.default")[0].args[1] is narrowing[0]
    assert_same_as_module(program, module, inputs)


def test_argmax_only_returned_is_left_alone():
    module = Fn(lambda m, x: torch.argmax(x, dim=0))
    inputs = (torch.randn(5, 2),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    assert not casts(program)


@pytest.mark.parametrize(
    "make_pass",
    [ConvertInt64ConstOpsToInt32Pass, ConvertInt64OutputOpsToInt32Pass, InsertInt32CastsAfterInt64PlaceholdersPass],
    ids=lambda p: p.__name__,
)
def test_passes_are_idempotent(make_pass):
    def fn(m, ids, x):
        positions = torch.arange(ids.shape[0])
        return m.table(torch.argmax(x, -1)) + m.table(ids) + m.table(positions), cpu_only(x.long()), cpu_only(ids), cpu_only(positions)

    module = Fn(fn)
    inputs = (torch.tensor([1, 7]), torch.randn(2, 16))
    once = edge_program(module, inputs, [make_pass()])
    twice = edge_program(module, inputs, [make_pass(), make_pass()])
    assert casts(once), "the pass did nothing"
    assert [c.kwargs["dtype"] for c in casts(once)] == [c.kwargs["dtype"] for c in casts(twice)]
    assert_same_as_module(twice, module, inputs)


# --- InsertInt32CastsAfterInt64PlaceholdersPass -------------------------------------------------


def test_int64_ids_are_cast_after_the_placeholders():
    module = Fn(lambda m, ids, x: m.table(ids) * x)
    inputs = (torch.tensor([[1, 5, 15]]), torch.randn(1, 3, 3))
    program = edge_program(module, inputs, [InsertInt32CastsAfterInt64PlaceholdersPass()])
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    ids = user_inputs(program)[0]
    assert dtype(ids) == torch.int64  # the program's signature is unchanged
    (cast,) = casts(program)
    assert cast.args[0] is ids and cast.kwargs["dtype"] == torch.int32 and dtype(cast) == torch.int32
    assert cast.prev is placeholders[-1]  # right after the placeholders
    assert list(ids.users) == [cast]
    assert calls(program, "aten.embedding.default")[0].args[1] is cast
    assert_same_as_module(program, module, inputs)


def test_delegable_index_consumers_read_the_int32_cast():
    module = Fn(lambda m, ids, x: (m.table(ids), torch.gather(x, 1, ids)))
    inputs = (torch.tensor([[0, 2], [1, 1]]), torch.randn(2, 3))
    program = edge_program(module, inputs, [InsertInt32CastsAfterInt64PlaceholdersPass()])
    (cast,) = casts(program)
    assert cast.kwargs["dtype"] == torch.int32 and cast.args[0] is user_inputs(program)[0]
    assert calls(program, "aten.gather.default")[0].args[2] is cast
    assert calls(program, "aten.embedding.default")[0].args[1] is cast
    assert_same_as_module(program, module, inputs)


def test_one_hot_gets_a_local_int64_cast():
    # On torch.export's ATen graph, one_hot is one node (it needs int64 and has no TOSA lowering).
    module = Fn(lambda m, ids: (m.table(ids), torch.nn.functional.one_hot(ids, 16)))
    inputs = (torch.tensor([3, 0, 15]),)
    program = torch.export.export(module, inputs, strict=False)
    assert InsertInt32CastsAfterInt64PlaceholdersPass()(program).modified
    (one_hot,) = calls(program, "aten.one_hot.default")
    restore = one_hot.args[0]
    assert aten_name(restore.target) == "aten._to_copy.default" and restore.kwargs["dtype"] == torch.int64
    assert restore.next is one_hot
    assert restore.args[0].kwargs["dtype"] == torch.int32 and restore.args[0].args[0] is user_inputs(program)[0]
    assert_same_as_module(program, module, inputs)


def test_int64_input_only_returned_or_on_cpu_is_left_alone():
    module = Fn(lambda m, ids: (ids, cpu_only(ids)))
    inputs = (torch.tensor([1, 2]),)
    program = edge_program(module, inputs, [InsertInt32CastsAfterInt64PlaceholdersPass()])
    assert not casts(program)


def test_buffers_are_not_inputs():
    module = Fn(lambda m, x: m.table(m.ids) * x)
    module.register_buffer("ids", torch.tensor([1, 2]))
    program = edge_program(module, (torch.randn(2, 3),), [InsertInt32CastsAfterInt64PlaceholdersPass()])
    assert not casts(program)


def test_on_a_bare_graph_module_returns_a_pass_result():
    module = Fn(lambda m, ids: m.table(ids))
    program = torch.export.export(module, (torch.tensor([4, 2]),), strict=False)
    result = InsertInt32CastsAfterInt64PlaceholdersPass()(program.graph_module)
    assert isinstance(result, PassResult) and result.modified
    (cast,) = [n for n in result.graph_module.graph.nodes if is_cast(n)]
    assert cast.args[0].op == "placeholder" and cast.kwargs["dtype"] == torch.int32
    assert dtype(cast) == torch.int32 and calls(program, "aten.embedding.default")[0].args[1] is cast


# --- ToDevicePass --------------------------------------------------------------------------------


def test_to_device_moves_placeholders_constants_and_device_kwargs():
    module = Fn(lambda m, x: m.table(torch.arange(3)) * x)
    program = edge_program(module, (torch.randn(3, 3),), [ToDevicePass("meta")])
    meta = torch.device("meta")
    for node in program.graph.nodes:
        if node.op in ("placeholder", "call_function"):
            assert node.meta["val"].device == meta, node.name
        if "device" in node.kwargs:
            assert node.kwargs["device"] == meta
    assert calls(program, "aten.arange.start_step")
    assert all(t.device == meta for t in program.state_dict.values())


def test_to_device_on_a_graph_module_and_back():
    module = Fn(lambda m, x: m.table(torch.arange(3)) * x)
    program = torch.export.export(module, (torch.randn(3, 3),), strict=False)
    assert not ToDevicePass("cpu")(program.graph_module).modified  # already there
    result = ToDevicePass(torch.device("meta"))(program.graph_module)
    assert result.modified
    (arange,) = [n for n in result.graph_module.graph.nodes if n.op == "call_function" and "arange" in str(n.target)]
    assert arange.kwargs["device"] == torch.device("meta") and arange.meta["val"].device == torch.device("meta")


# --- the rest of the flow ------------------------------------------------------------------------


def test_bind_const_narrows_int64_with_a_range_check():
    graph = TosaGraph(TosaSpecification.create_from_string("TOSA-1.0+FP"))
    fx = torch.fx.Graph()
    small, large = fx.placeholder("small"), fx.placeholder("large")
    tensor = graph.bind_const(small, torch.tensor([-(2**31), 2**31 - 1]))
    assert graph.constants[tensor.name].dtype == np.int32
    with pytest.raises(EtarmError, match="constant 'large'.*outside the int32 range"):
        graph.bind_const(large, torch.tensor([0, 2**31]))


def test_int64_constant_outside_int32_stays_on_cpu():
    big = torch.tensor([0, 2**40])
    module = Fn(lambda m, x: m.table(x) * (big + x)[:, None])
    partitioner = make_partitioner("TOSA-1.0+FP", None)
    exported = torch.export.export(module, (torch.tensor([1, 2]),), strict=False)
    to_edge_transform_and_lower(
        exported,
        transform_passes=default_transform_passes(partitioner.tosa_spec),
        partitioner=[partitioner],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    reasons = {op: reason for op, reason in partitioner.rejections.values()}
    assert "int64 constant with values outside int32" in reasons["aten.add.Tensor"]


def test_compile_model_applies_the_passes_for_fp():
    module = Fn(lambda m, ids: m.table(ids))
    report = compile_model(module, (torch.tensor([[1, 2, 3]]),), "TOSA-1.0+FP").report
    (partition,) = report["partitions"]
    assert "aten.embedding.default" in partition["aten_ops"]
    # The embedding reads the int32 cast of the ids: a partition input, or a cast inside the partition.
    cast_inside = any(op.endswith("_to_dim_order_copy.default") for op in partition["aten_ops"])
    assert cast_inside or [i["dtype"] for i in partition["inputs"]] == ["int32"]


# --- end to end ----------------------------------------------------------------------------------


class TokenAndPosition(torch.nn.Module):
    def __init__(self, vocab=50, positions=16, width=8):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, width)
        self.positions = torch.nn.Embedding(positions, width)

    def forward(self, ids):
        return self.tokens(ids) + self.positions(torch.arange(ids.shape[-1]))


@pytest.mark.parametrize("shape", [(7,), (2, 5), (3, 16)], ids=str)
def test_embedding_with_int64_ids_and_arange_positions(shape):
    torch.manual_seed(0)
    ids = torch.randint(0, 50, shape)
    run = assert_close_to_torch(TokenAndPosition(), (ids,))
    (partition,) = run.result.report["partitions"]
    assert partition["tosa_ops"].count("GATHER") == 2
    # the ids' int32 cast (InsertInt32CastsAfterInt64PlaceholdersPass) is inside the partition
    assert "dim_order_ops._to_dim_order_copy.default" in partition["aten_ops"]
    assert partition["inputs"] == [{"name": "ids", "dtype": "int64", "shape": list(shape)}]


class ArgmaxAndCastIndices(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = torch.nn.Embedding(12, 4)
        self.positions = torch.nn.Embedding(12, 4)

    def forward(self, logits, where):
        return self.tokens(torch.argmax(logits, dim=-1)) + self.positions(where.long())


def test_argmax_and_cast_indices_feed_embeddings():
    torch.manual_seed(0)
    logits, where = torch.randn(3, 12), torch.tensor([0.0, 5.7, 11.2])
    run = assert_close_to_torch(ArgmaxAndCastIndices(), (logits, where))
    assert run.result.report["partitions"][0]["tosa_ops"].count("GATHER") == 2
