"""InsertInt32CastsAfterInt64PlaceholdersPass: int64 graph inputs are read through an int32 cast."""

import torch
from torch.fx.passes.infra.pass_base import PassResult

from etarm.passes.dtype_casts import aten_name, is_cast
from etarm.passes.insert_int32_casts_after_int64_placeholders import InsertInt32CastsAfterInt64PlaceholdersPass
from etarm.testing.edge_programs import (
    TableFn,
    assert_same_as_module,
    calls,
    casts,
    cpu_only,
    dtype,
    edge_program,
    only_call,
    user_inputs,
)


def test_int64_ids_are_cast_after_the_placeholders():
    module = TableFn(lambda m, ids, x: m.table(ids) * x)
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
    module = TableFn(lambda m, ids, x: (m.table(ids), torch.gather(x, 1, ids)))
    inputs = (torch.tensor([[0, 2], [1, 1]]), torch.randn(2, 3))
    program = edge_program(module, inputs, [InsertInt32CastsAfterInt64PlaceholdersPass()])
    (cast,) = casts(program)
    assert cast.kwargs["dtype"] == torch.int32 and cast.args[0] is user_inputs(program)[0]
    assert calls(program, "aten.gather.default")[0].args[2] is cast
    assert calls(program, "aten.embedding.default")[0].args[1] is cast
    assert_same_as_module(program, module, inputs)


def test_one_hot_gets_a_local_int64_cast():
    # On torch.export's ATen graph, one_hot is one node (it needs int64 and has no TOSA lowering).
    module = TableFn(lambda m, ids: (m.table(ids), torch.nn.functional.one_hot(ids, 16)))
    inputs = (torch.tensor([3, 0, 15]),)
    program = torch.export.export(module, inputs, strict=False)
    assert InsertInt32CastsAfterInt64PlaceholdersPass()(program).modified
    one_hot = only_call(program, "aten.one_hot.default")
    restore = one_hot.args[0]
    assert aten_name(restore.target) == "aten._to_copy.default" and restore.kwargs["dtype"] == torch.int64
    assert restore.next is one_hot
    assert restore.args[0].kwargs["dtype"] == torch.int32 and restore.args[0].args[0] is user_inputs(program)[0]
    assert_same_as_module(program, module, inputs)


def test_int64_input_only_returned_or_on_cpu_is_left_alone():
    module = TableFn(lambda m, ids: (ids, cpu_only(ids)))
    inputs = (torch.tensor([1, 2]),)
    program = edge_program(module, inputs, [InsertInt32CastsAfterInt64PlaceholdersPass()])
    assert not casts(program)


def test_buffers_are_not_inputs():
    module = TableFn(lambda m, x: m.table(m.ids) * x)
    module.register_buffer("ids", torch.tensor([1, 2]))
    program = edge_program(module, (torch.randn(2, 3),), [InsertInt32CastsAfterInt64PlaceholdersPass()])
    assert not casts(program)


def test_on_a_bare_graph_module_returns_a_pass_result():
    module = TableFn(lambda m, ids: m.table(ids))
    program = torch.export.export(module, (torch.tensor([4, 2]),), strict=False)
    result = InsertInt32CastsAfterInt64PlaceholdersPass()(program.graph_module)
    assert isinstance(result, PassResult) and result.modified
    (cast,) = [n for n in result.graph_module.graph.nodes if is_cast(n)]
    assert cast.args[0].op == "placeholder" and cast.kwargs["dtype"] == torch.int32
    assert dtype(cast) == torch.int32 and calls(program, "aten.embedding.default")[0].args[1] is cast
