"""What the int64 passes share (int64_narrowing), and int64 models end to end on TOSA-1.0+FP.

The passes themselves: test_convert_int64_const_ops_to_int32.py,
test_convert_int64_output_ops_to_int32.py, test_insert_int32_casts_after_int64_placeholders.py.
"""

import numpy as np
import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

from etarm.compiler import compile_model
from etarm.errors import EtarmError
from etarm.passes.base import Stage
from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
from etarm.passes.convert_int64_output_ops_to_int32 import ConvertInt64OutputOpsToInt32Pass
from etarm.passes.insert_int32_casts_after_int64_placeholders import InsertInt32CastsAfterInt64PlaceholdersPass
from etarm.targets import make_partitioner
from etarm.testing.edge_programs import TableFn, assert_same_as_module, casts, cpu_only, edge_program
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.tosa_ir.graph import TosaGraph
from etarm.tosa_ir.specification import TosaSpecification


@pytest.mark.parametrize(
    "make_pass",
    [ConvertInt64ConstOpsToInt32Pass, ConvertInt64OutputOpsToInt32Pass, InsertInt32CastsAfterInt64PlaceholdersPass],
    ids=lambda p: p.__name__,
)
def test_passes_are_idempotent(make_pass):
    def fn(m, ids, x):
        positions = torch.arange(ids.shape[0])
        return m.table(torch.argmax(x, -1)) + m.table(ids) + m.table(positions), cpu_only(x.long()), cpu_only(ids), cpu_only(positions)

    module = TableFn(fn)
    inputs = (torch.tensor([1, 7]), torch.randn(2, 16))
    once = edge_program(module, inputs, [make_pass()])
    twice = edge_program(module, inputs, [make_pass(), make_pass()])
    assert casts(once), "the pass did nothing"
    assert [c.kwargs["dtype"] for c in casts(once)] == [c.kwargs["dtype"] for c in casts(twice)]
    assert_same_as_module(twice, module, inputs)


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
    module = TableFn(lambda m, x: m.table(x) * (big + x)[:, None])
    partitioner = make_partitioner("TOSA-1.0+FP", None)
    exported = torch.export.export(module, (torch.tensor([1, 2]),), strict=False)
    to_edge_transform_and_lower(
        exported,
        transform_passes=partitioner.compile_spec.pipeline().stage(Stage.EDGE),
        partitioner=[partitioner],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    reasons = {op: reason for op, reason in partitioner.rejections.values()}
    assert "int64 constant with values outside int32" in reasons["aten.add.Tensor"]


def test_compile_model_applies_the_passes_for_fp():
    module = TableFn(lambda m, ids: m.table(ids))
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
