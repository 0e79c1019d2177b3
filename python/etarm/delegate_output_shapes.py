"""Gives a delegate call's fake outputs from the lowered program's metadata instead of running it.

Every re-tracing pass after delegation (``to_executorch``'s spec propagation among them) meets
``executorch_call_delegate`` and asks torch for its outputs under fake tensors; torch's rule
unlifts the delegate's whole original program and runs it node by node, about a second for a
MobileNetV2 partition. The outputs' shapes, strides and dtypes are already on the original
program's output nodes. ``delegate_outputs_from_metadata()`` answers from there whenever the
call's inputs have the shapes and dtypes the program was traced with, and otherwise (real
tensors, other shapes, missing metadata) lets torch run the program as before.
"""

from __future__ import annotations

import contextlib
import importlib

import torch
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import FakeTensor
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils import _pytree as pytree

# The submodule, not the operator of the same name its package exports.
_CALL_DELEGATE = importlib.import_module("torch._higher_order_ops.executorch_call_delegate")


def _same_layout(value, expected) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and isinstance(expected, torch.Tensor)
        and value.shape == expected.shape
        and value.dtype == expected.dtype
    )


def _user_values(specs, nodes, kind) -> list:
    return [node.meta.get("val") for spec, node in zip(specs, nodes) if spec.kind == kind]


def fake_outputs(lowered_module, args: tuple):
    """The delegate's outputs as new fake tensors, or None when the metadata cannot tell."""
    fake_mode = detect_fake_mode(args)
    flat_args = pytree.tree_leaves(args)
    if fake_mode is None or not all(isinstance(value, FakeTensor) for value in flat_args):
        return None
    program = lowered_module.original_module
    signature = program.graph_signature
    placeholders = [node for node in program.graph.nodes if node.op == "placeholder"]
    expected_inputs = _user_values(signature.input_specs, placeholders, InputKind.USER_INPUT)
    if len(expected_inputs) != len(flat_args) or not all(map(_same_layout, flat_args, expected_inputs)):
        return None
    output_nodes = pytree.tree_leaves(program.graph.output_node().args[0])
    outputs = _user_values(signature.output_specs, output_nodes, OutputKind.USER_OUTPUT)
    if not all(isinstance(value, torch.Tensor) for value in outputs):
        return None
    with fake_mode:
        fresh = [
            torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device=value.device)
            for value in outputs
        ]
    return pytree.tree_unflatten(fresh, program.call_spec.out_spec)


@contextlib.contextmanager
def delegate_outputs_from_metadata():
    """Within: fake-tensor calls of a delegate answer from its program's metadata where they can."""
    run_program = _CALL_DELEGATE.call_delegate_cpu

    def call_delegate(lowered_module, *args):
        outputs = fake_outputs(lowered_module, args)
        return run_program(lowered_module, *args) if outputs is None else outputs

    _CALL_DELEGATE.call_delegate_cpu = call_delegate
    try:
        yield
    finally:
        _CALL_DELEGATE.call_delegate_cpu = run_program
