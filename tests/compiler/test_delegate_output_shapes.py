"""delegate_outputs_from_metadata: a delegate call's fake outputs from the lowered program's
metadata are what running the program under fake tensors gives, and the .pte is the same."""

import contextlib
import importlib

import pytest
import torch
from etarm import compiler
from etarm.delegate_output_shapes import delegate_outputs_from_metadata, fake_outputs
from etarm.models import load_model
from etarm.testing.cpu_fallback import Fn
from etarm.tosa.compile_spec import TosaCompileSpec
from etarm.tosa.partitioner import TOSAPartitioner
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from executorch.exir.lowered_backend_module import get_lowered_submodules
from torch._subclasses.fake_tensor import FakeTensorMode

_CALL_DELEGATE = importlib.import_module("torch._higher_order_ops.executorch_call_delegate")


def _lowered_module(fn, *inputs):
    edge = to_edge_transform_and_lower(
        torch.export.export(Fn(fn), inputs),
        partitioner=[TOSAPartitioner(TosaCompileSpec("TOSA-1.0+FP"))],
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    ((_, lowered, _),) = get_lowered_submodules(edge.exported_program().graph_module)
    return lowered


def _two_outputs(x, y):
    return (x @ y).transpose(0, 1), torch.relu(x).sum(dim=1)


def test_fake_outputs_are_what_running_the_program_gives():
    lowered = _lowered_module(_two_outputs, torch.rand(3, 4), torch.rand(4, 5))
    with FakeTensorMode() as mode:
        x, y = mode.from_tensor(torch.rand(3, 4)), mode.from_tensor(torch.rand(4, 5))
        from_metadata = fake_outputs(lowered, (x, y))
        by_running = _CALL_DELEGATE.call_delegate_cpu(lowered, x, y)
    assert from_metadata is not None
    flat_ours, flat_theirs = (
        torch.utils._pytree.tree_flatten(from_metadata),
        torch.utils._pytree.tree_flatten(by_running),
    )
    assert flat_ours[1] == flat_theirs[1]
    for ours, theirs in zip(flat_ours[0], flat_theirs[0]):
        assert (ours.shape, ours.stride(), ours.dtype, ours.device) == (
            theirs.shape,
            theirs.stride(),
            theirs.dtype,
            theirs.device,
        )
        assert ours.fake_mode is mode


def test_real_tensors_or_other_shapes_run_the_program():
    lowered = _lowered_module(_two_outputs, torch.rand(3, 4), torch.rand(4, 5))
    assert fake_outputs(lowered, (torch.rand(3, 4), torch.rand(4, 5))) is None
    with FakeTensorMode() as mode:
        assert fake_outputs(lowered, (mode.from_tensor(torch.rand(2, 4)), mode.from_tensor(torch.rand(4, 5)))) is None
    with delegate_outputs_from_metadata():
        real = _CALL_DELEGATE.call_delegate_cpu(lowered, torch.ones(3, 4), torch.ones(4, 5))
    torch.testing.assert_close(real[1], torch.full((3,), 4.0))


@pytest.mark.parametrize(
    "name, target, quantize", [("mlp", "TOSA-1.0+FP", False), ("transformer_block", "ethos-u85-256", True)]
)
def test_the_same_pte(monkeypatch, name, target, quantize):
    model, inputs = load_model(name)
    from_metadata = compiler.compile_model(model, inputs, target, quantize=quantize).pte
    monkeypatch.setattr(compiler, "delegate_outputs_from_metadata", contextlib.nullcontext)
    assert compiler.compile_model(model, inputs, target, quantize=quantize).pte == from_metadata
