"""relu / clamp / hardtanh on quantized integers (INT profile): one CLAMP.

The real bounds are quantized with the output parameters; an activation fused into
the op before it shares that op's parameters, so no RESCALE precedes the CLAMP (see
passes/fuse_activation_qparams.py), and bounds that cut nothing off emit nothing.
"""

from __future__ import annotations

import numbers

import torch

from etarm.lowering.quantized import clamp_in_output_domain
from etarm.op_names import op_name
from etarm.tosa_ir.graph import TosaGraph, TosaTensor


def bound_reason(node: torch.fx.Node, *bounds) -> str | None:
    """Quantized bounds must be numbers: ``bounds`` are (argument name, value) pairs."""
    for name, value in bounds:
        if value is not None and (not isinstance(value, numbers.Number) or isinstance(value, bool)):
            return f"{op_name(node.target)}: {name} must be a number, not {type(value).__name__}"
    return None


def define_clamp(graph: TosaGraph, node: torch.fx.Node, low: float | None, high: float | None) -> TosaTensor:
    """Quantized ``node``'s output = clamp(argument 0, low, high); None leaves that side open."""
    return clamp_in_output_domain(graph, node, low, high)
