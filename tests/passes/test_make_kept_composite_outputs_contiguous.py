"""MakeKeptCompositeOutputsContiguous: a composite op kept whole (scaled_dot_product_attention) whose
recorded result is not contiguous gets a contiguous clone, so both of ExecuTorch's decompositions agree."""

import pytest
import torch
import torch.nn.functional as F
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

from etarm.compiler import compile_model
from etarm.passes.make_kept_composite_outputs_contiguous import MakeKeptCompositeOutputsContiguous
from etarm.targets import make_partitioner
from etarm.testing.cpu_fallback import Fn
from etarm.testing.edge_programs import assert_same_as_module, calls, only_call

SDPA = "aten.scaled_dot_product_attention.default"
CLONE = "aten.clone.default"


def heads_attention(x):
    """Attention over 2 heads of 8 from [1, 5, 16]: the heads are a transposed view, so the
    attention's recorded result is not contiguous; transpose(1, 2).reshape(...) goes back."""
    heads = x.view(1, 5, 2, 8).transpose(1, 2)
    return F.scaled_dot_product_attention(heads, heads, heads).transpose(1, 2).reshape(1, 5, 16)


def contiguous_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(1, 5, 16)


HEADS_INPUTS = (torch.randn(1, 5, 16, generator=torch.Generator().manual_seed(0)),)
QKV_INPUTS = tuple(torch.randn(1, 2, 5, 8, generator=torch.Generator().manual_seed(i)) for i in range(3))


def exported(fn, inputs):
    return torch.export.export(Fn(fn), inputs, strict=False)


def test_a_non_contiguous_result_gets_a_contiguous_clone():
    program = exported(heads_attention, HEADS_INPUTS)
    assert not only_call(program, SDPA).meta["val"].is_contiguous()
    assert MakeKeptCompositeOutputsContiguous()(program).modified
    attention = only_call(program, SDPA)
    (clone,) = attention.users
    assert clone.target == torch.ops.aten.clone.default and clone.kwargs["memory_format"] == torch.contiguous_format
    assert clone.meta["val"].is_contiguous() and clone.meta["val"].shape == attention.meta["val"].shape
    assert [u.target for u in clone.users] == [torch.ops.aten.transpose.int]
    assert_same_as_module(program, Fn(heads_attention), HEADS_INPUTS)


def test_a_contiguous_result_is_left_alone():
    program = exported(contiguous_attention, QKV_INPUTS)
    assert only_call(program, SDPA).meta["val"].is_contiguous()
    assert not MakeKeptCompositeOutputsContiguous()(program).modified
    assert not calls(program, CLONE)


def test_ops_not_kept_whole_are_left_alone():
    # The transposes' results are not contiguous either, but they are no composite a visitor keeps.
    program = exported(lambda x: x.transpose(0, 1).reshape(-1) * 2, (torch.randn(3, 4),))
    assert not MakeKeptCompositeOutputsContiguous()(program).modified
    assert not calls(program, CLONE)


def lower(program, target, per_node_check=False):
    partitioner = make_partitioner(target, None)
    if per_node_check:  # ExecuTorch's path when some node of a kept op does not lower whole
        partitioner.ops_to_not_decompose = partitioner.ops_with_per_node_check
    edge = to_edge_transform_and_lower(
        program, partitioner=[partitioner], compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    return edge.exported_program()


def test_attention_heads_lower_only_with_the_pass():
    # Without the clone the per-node check's second decomposition meets a view of a
    # non-contiguous tensor.
    with pytest.raises(Exception, match="view"):
        lower(exported(heads_attention, HEADS_INPUTS), "TOSA-1.0+FP", per_node_check=True)
    program = exported(heads_attention, HEADS_INPUTS)
    MakeKeptCompositeOutputsContiguous()(program)
    lower(program, "TOSA-1.0+FP", per_node_check=True)
    lower(exported(heads_attention, HEADS_INPUTS), "TOSA-1.0+FP")  # the ops kept by name


@pytest.mark.parametrize("target", ["TOSA-1.0+FP", "TOSA-1.0+INT"])
def test_attention_heads_compile_kept_whole(target):
    report = compile_model(Fn(heads_attention), HEADS_INPUTS, target, quantize=target.endswith("INT")).report
    assert any(SDPA in partition["aten_ops"] for partition in report["partitions"])
