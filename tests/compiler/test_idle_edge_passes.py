"""skip_idle_edge_passes: a pass is skipped only where its test finds no node to rewrite, and the
compiled programs are the same bytes with and without the skipping."""

import contextlib

import pytest
import torch
from etarm import compiler, idle_edge_passes
from etarm.models import load_model
from etarm.testing.cpu_fallback import Fn
from executorch.exir import EdgeCompileConfig, to_edge
from executorch.exir.passes.memory_format_ops_pass import MemoryFormatOpsPass
from executorch.exir.passes.normalize_transpose_pass import NormalizeTransposePass
from executorch.exir.passes.remove_mixed_type_operators import RemoveMixedTypeOperators
from executorch.exir.passes.scalar_to_tensor_pass import ScalarToTensorPass
from executorch.exir.passes.sym_to_tensor_pass import SymToTensorPass
from torch._export.passes.replace_view_ops_with_view_copy_ops_pass import ReplaceViewOpsWithViewCopyOpsPass


def _aten_graph(fn, *inputs, dynamic_shapes=None) -> torch.fx.GraphModule:
    return torch.export.export(Fn(fn), inputs, dynamic_shapes=dynamic_shapes).run_decompositions({}).graph_module


def _has_work(pass_class, graph_module) -> bool:
    return idle_edge_passes.has_work(graph_module, idle_edge_passes._REWRITES[pass_class])


x, i = torch.rand(2, 3), torch.arange(6, dtype=torch.int32).reshape(2, 3)


@pytest.mark.parametrize(
    "pass_class, busy, idle",
    [
        (NormalizeTransposePass, lambda t: t.t(), lambda t: t.permute(1, 0) + 1),
        (ReplaceViewOpsWithViewCopyOpsPass, lambda t: t.view(3, 2), lambda t: t + 1),
        (ScalarToTensorPass, lambda t: torch.ops.aten.add.Tensor(t, 2), lambda t: t + t),
        (RemoveMixedTypeOperators, lambda t: t + i, lambda t: t * t),
    ],
)
def test_a_pass_has_work_exactly_where_it_rewrites(pass_class, busy, idle):
    assert _has_work(pass_class, _aten_graph(busy, x))
    assert not _has_work(pass_class, _aten_graph(idle, x))


def test_integer_division_promotes_to_float_so_the_mixed_type_pass_runs():
    assert _has_work(RemoveMixedTypeOperators, _aten_graph(lambda a: torch.ops.aten.div.Tensor(a, a), i))


def test_memory_format_ops_are_found_in_the_edge_dialect():
    aten = _aten_graph(lambda t: t.clone() + 1, x)
    assert not _has_work(MemoryFormatOpsPass, aten)  # the pass rewrites edge ops only
    edge = to_edge(
        torch.export.export(Fn(lambda t: t.clone() + 1), (x,)),
        compile_config=EdgeCompileConfig(_skip_dim_order=True, _check_ir_validity=False),
    )
    assert _has_work(MemoryFormatOpsPass, edge.exported_program().graph_module)


def test_symbolic_values_count_as_work_for_every_pass():
    dynamic = _aten_graph(lambda t: t + t.shape[0], x, dynamic_shapes=(({0: torch.export.Dim("rows")},),))
    assert all(idle_edge_passes.has_work(dynamic, rewrites) for rewrites in idle_edge_passes._REWRITES.values())
    assert _has_work(SymToTensorPass, dynamic)
    assert not _has_work(SymToTensorPass, _aten_graph(lambda t: t + 1, x))


def test_passes_are_restored_after_the_context():
    before = {cls: cls.__dict__.get("call") for cls in idle_edge_passes._REWRITES}
    with idle_edge_passes.skip_idle_edge_passes():
        assert all(cls.__dict__.get("call") is not before[cls] for cls in before)
    assert {cls: cls.__dict__.get("call") for cls in idle_edge_passes._REWRITES} == before


@pytest.mark.parametrize(
    "name, target, quantize",
    [("mlp", "TOSA-1.0+FP", False), ("cnn_bn", "ethos-u55-128", True), ("transformer_block", "TOSA-1.0+INT", True)],
)
def test_skipping_idle_passes_gives_the_same_pte(monkeypatch, name, target, quantize):
    model, inputs = load_model(name)
    skipped = compiler.compile_model(model, inputs, target, quantize=quantize)
    monkeypatch.setattr(compiler, "skip_idle_edge_passes", contextlib.nullcontext)
    every_pass = compiler.compile_model(model, inputs, target, quantize=quantize)
    assert skipped.pte == every_pass.pte
    assert skipped.report["partitions"][0]["tosa_ops"] == every_pass.report["partitions"][0]["tosa_ops"]
