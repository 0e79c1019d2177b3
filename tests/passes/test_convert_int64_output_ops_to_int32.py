"""ConvertInt64OutputOpsToInt32Pass: int64 results of casts and index ops (argmax, max.dim) are read as int32."""

import torch

from etarm.passes.convert_int64_output_ops_to_int32 import ConvertInt64OutputOpsToInt32Pass
from etarm.testing.edge_programs import TableFn, assert_same_as_module, calls, casts, dtype, edge_program, output_nodes


def test_cast_to_int64_casts_to_int32():
    module = TableFn(lambda m, x: m.table(x.long()))
    inputs = (torch.tensor([[1.0, 7.9], [3.2, 15.0]]),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    (cast,) = casts(program)
    assert cast.kwargs["dtype"] == torch.int32 and dtype(cast) == torch.int32
    assert calls(program, "aten.embedding.default")[0].args[1] is cast
    assert_same_as_module(program, module, inputs)


def test_cast_to_int64_returned_stays_int64():
    module = TableFn(lambda m, x: x.long())
    inputs = (torch.tensor([1.5, -2.5]),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    (cast,) = casts(program)
    assert cast.kwargs["dtype"] == torch.int64
    assert_same_as_module(program, module, inputs)


def test_argmax_users_read_an_int32_cast():
    module = TableFn(lambda m, x: m.table(torch.argmax(x, dim=-1)))
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

    module = TableFn(fn)
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
    module = TableFn(lambda m, x: torch.argmax(x, dim=0))
    inputs = (torch.randn(5, 2),)
    program = edge_program(module, inputs, [ConvertInt64OutputOpsToInt32Pass()])
    assert not casts(program)
