"""ShareQParams: parameters for the values on direct edges (no Q/DQ between two ops).

After FoldQuantizeNodes an op knows the parameters of the Q/DQ nodes it touched. Two
kinds of edges had none (tosa/quantized_support.py admits them):

- op -> fused activation (conv -> relu): the op writes with the activation's output
  parameters, and the activation reads them unchanged;
- edges into or out of a pass-through op (reshape -> clone + view after edge
  decomposition): values move unchanged, so the parameters on one side hold on the other.

Parameters spread along such edges until nothing changes; a node's ``meta["val"]``
takes the integer dtype with its output parameters.
"""

from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram

from etarm.lowering.quantized_support import is_pass_through
from etarm.passes.base import PartitionPass
from etarm.tosa_ir.quant_params import (
    INPUT_QPARAMS,
    QuantParams,
    flat_args,
    has_output_qparams,
    is_fused_activation,
    output_qparams,
    set_input_qparams,
    set_output_qparams,
)


def _give_output(node: torch.fx.Node, qparams: QuantParams) -> None:
    set_output_qparams(node, 0, qparams)
    node.meta["val"] = node.meta["val"].to(qparams.dtype)
    if node.target is operator.getitem:  # one result of a multi-output op
        parent, index = node.args
        values = list(parent.meta["val"])
        values[index] = values[index].to(qparams.dtype)
        parent.meta["val"] = values
        set_output_qparams(parent, index, qparams)


def _tensor_args(node: torch.fx.Node):
    return [(key, arg) for key, arg in flat_args(node) if isinstance(arg.meta.get("val"), torch.Tensor)]


def _spread(node: torch.fx.Node) -> bool:
    """One round of sharing around ``node``; True if it learned or taught anything."""
    changed = False
    inputs = node.meta.setdefault(INPUT_QPARAMS, {})
    # Producer -> node: a value's parameters are the same at both ends of an edge.
    for key, arg in _tensor_args(node):
        if key not in inputs and arg.op == "call_function" and has_output_qparams(arg):
            set_input_qparams(node, key, output_qparams(arg))
            changed = True
    shares = is_pass_through(node) or is_fused_activation(node)
    if not shares:
        return changed
    known = [inputs[key] for key, _ in _tensor_args(node) if key in inputs]
    if not has_output_qparams(node) and known and not isinstance(node.meta.get("val"), (list, tuple)):
        _give_output(node, known[0])
        changed = True
    if has_output_qparams(node) and not isinstance(node.meta.get("val"), (list, tuple)):
        for key, arg in _tensor_args(node):
            if key in inputs or not arg.meta["val"].dtype.is_floating_point:
                continue  # known already, or an integer operand such as gather's indices
            set_input_qparams(node, key, output_qparams(node))
            if arg.op == "call_function" and not has_output_qparams(arg):
                _give_output(arg, output_qparams(node))  # node -> producer (fused or pass-through)
            changed = True
    return changed


class ShareQParams(PartitionPass):
    """Gives ops that pass values through (data movement) the quantization parameters of their neighbours."""

    def rewrite(self, program: ExportedProgram) -> None:
        nodes = [n for n in program.graph.nodes if n.op == "call_function"]
        changed = True
        while changed:
            changed = False
            for node in nodes:
                if node.target is operator.getitem:
                    continue
                changed |= _spread(node)
