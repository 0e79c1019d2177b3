"""lower_to_edge: ExecuTorch's to_edge_transform_and_lower with one decomposition pass where the
partitioner keeps its ops by name, the same program in every case."""

import pytest
import torch
from etarm import compiler
from etarm.edge_lowering import executorchs_lowering
from etarm.models import load_model
from etarm.testing.cpu_fallback import Fn
from torch.export import ExportedProgram


def _compile(monkeypatch, module, inputs, target, *, quantize=False, delegate=True, additional_checks=None):
    """The .pte and the report's CPU ops, and the decomposition passes of the lowering."""
    passes = []
    decompose = ExportedProgram.run_decompositions
    with monkeypatch.context() as patch:
        patch.setattr(ExportedProgram, "run_decompositions", lambda *a, **k: passes.append(1) or decompose(*a, **k))
        result = compiler.compile_model(
            module, inputs, target, quantize=quantize, delegate=delegate, additional_checks=additional_checks
        )
    return (result.pte, result.report["cpu_ops"]), len(passes)


def _both(monkeypatch, *args, **kwargs):
    ours = _compile(monkeypatch, *args, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr(compiler, "lower_to_edge", executorchs_lowering)
        theirs = _compile(monkeypatch, *args, **kwargs)
    return ours, theirs


# ExecuTorch skips its second pass when no node is one its table decomposes (mlp's linears are kept).
@pytest.mark.parametrize(
    "name, target, quantize, executorch_passes",
    [
        ("mlp", "TOSA-1.0+FP", False, 1),
        ("cnn_bn", "TOSA-1.0+FP", False, 2),
        ("cnn_bn", "ethos-u55-128", True, 2),
        ("transformer_block", "TOSA-1.0+INT", True, 2),
    ],
)
def test_one_decomposition_pass_gives_executorchs_program(monkeypatch, name, target, quantize, executorch_passes):
    model, inputs = load_model(name)
    (ours, our_passes), (theirs, their_passes) = _both(monkeypatch, model, inputs, target, quantize=quantize)
    assert ours == theirs
    assert (our_passes, their_passes) == (1, executorch_passes)


def test_without_delegation_the_cpu_program_is_decomposed_once_to_the_same_program(monkeypatch):
    model, inputs = load_model("cnn_bn")
    (ours, our_passes), (theirs, their_passes) = _both(monkeypatch, model, inputs, "TOSA-1.0+FP", delegate=False)
    assert ours == theirs
    assert (our_passes, their_passes) == (1, 2)


def test_a_per_node_check_takes_executorchs_path(monkeypatch):
    refuse_linear = [lambda node, spec: "refused" if "linear" in str(node.target) else None]
    linear, x = torch.nn.Linear(4, 3), (torch.rand(2, 4),)
    (ours, our_passes), (theirs, their_passes) = _both(
        monkeypatch, linear, x, "TOSA-1.0+FP", additional_checks=refuse_linear
    )
    assert ours == theirs
    assert our_passes == their_passes == 3  # functionalize, decompose, decompose what the check refused


def test_an_input_written_back_takes_executorchs_path(monkeypatch):
    (ours, our_passes), (theirs, their_passes) = _both(
        monkeypatch, Fn(lambda t: t.mul_(2)), (torch.rand(3),), "TOSA-1.0+FP"
    )
    assert ours == theirs
    assert our_passes == their_passes
