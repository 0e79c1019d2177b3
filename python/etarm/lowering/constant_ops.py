"""Creation ops whose value is known at compile time become TOSA constants.

The value is computed by running the ATen op itself on CPU (shape-only tensor inputs
such as full_like's are replaced by empty tensors of their shape), so it matches torch
bit for bit. int64 results are stored as int32 (TOSA 1.0 has no int64) when they fit.
A float constant of a quantized model (INT) is stored quantized with the parameters its
consumers read it with, by torch's own quantize (not full_like & co., whose shape comes
from a float tensor).
"""

from __future__ import annotations

import torch

from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ANY_PROFILE, BOOL, FLOAT, FP, INT, SMALL_INT, dtype_reason
from etarm.lowering.quantized import is_int_spec
from etarm.lowering.registry import NodeVisitor
from etarm.op_names import op_name
from etarm.tosa_ir.mapping import fits_int32, tensor_array, tosa_dtype
from etarm.tosa_ir.quant_params import is_quantized, output_qparams

# CONST takes bool and integers in both profiles, floats in PRO-FP.
CONSTANT_RULE = {FLOAT: FP, INT: ANY_PROFILE, SMALL_INT: ANY_PROFILE, BOOL: ANY_PROFILE}
# Larger constants would bloat the payload; such graphs are better off on CPU.
MAX_ELEMENTS = 1 << 22


def aten_overload(node: torch.fx.Node):
    """The torch.ops.aten overload behind an ATen or edge target."""
    namespace, name, overload = op_name(node.target).split(".")
    return getattr(getattr(getattr(torch.ops, namespace), name), overload)


def _placeholder(arg):
    if isinstance(arg, torch.fx.Node):
        val = arg.meta["val"]
        return torch.empty(tuple(int(d) for d in val.shape), dtype=val.dtype)
    if isinstance(arg, (list, tuple)):
        return type(arg)(_placeholder(a) for a in arg)
    return arg


def evaluate(node: torch.fx.Node) -> torch.Tensor:
    kwargs = {k: _placeholder(v) for k, v in node.kwargs.items() if k not in ("device", "pin_memory")}
    with torch.no_grad():
        return aten_overload(node)(*_placeholder(list(node.args)), **kwargs)


def _runtime_scalars(args) -> list[str]:
    """fx nodes among ``args`` that are not tensors (symbolic scalars known only at run time)."""
    found = []
    for arg in args:
        if isinstance(arg, torch.fx.Node) and not isinstance(arg.meta.get("val"), torch.Tensor):
            found.append(arg.name)
        elif isinstance(arg, (list, tuple)):
            found += _runtime_scalars(arg)
    return found


def _tensor_args(node: torch.fx.Node) -> list[torch.fx.Node]:
    """Tensor operands (full_like's shape source): a float one would enter an INT partition
    unquantized, so such constants stay on CPU in quantized models."""
    return [arg for arg in node.args if isinstance(arg, torch.fx.Node)]


def constant_reason(node: torch.fx.Node, spec) -> str | None:
    name = op_name(node.target)
    runtime = _runtime_scalars(list(node.args) + list(node.kwargs.values()))
    if runtime:
        return f"{name}: arguments {runtime} are only known at run time"
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor) or any(not isinstance(d, int) for d in val.shape):
        return f"{name}: the result shape is not static"
    if val.numel() > MAX_ELEMENTS:
        return f"{name}: {val.numel()} elements is too large for a constant (max {MAX_ELEMENTS})"
    if is_int_spec(spec) and val.dtype.is_floating_point and not _tensor_args(node):
        return None  # stored quantized; the partitioner checks that its users quantize it
    reason = dtype_reason(name, val.dtype, spec, CONSTANT_RULE)
    if reason:
        return reason
    if val.dtype == torch.int64 and not fits_int32(evaluate(node)):
        return f"{name}: int64 values outside the int32 range (TOSA 1.0 has no int64)"
    return None


class ConstantVisitor(NodeVisitor):
    """A node whose value does not depend on tensor data: evaluated once, emitted as CONST."""

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        return constant_reason(node, spec)

    def define(self, node, graph):
        value = evaluate(node)
        if is_quantized(node):
            q = output_qparams(node)
            value = torch.ops.quantized_decomposed.quantize_per_tensor(
                value.to(torch.float32), float(q.scale), int(q.zero_point), q.qmin, q.qmax, q.dtype
            )
            graph.bind(node, graph.const(value.numpy(), tosa_dtype(q.dtype), stem=node.name))
            return
        if value.dtype == torch.int64:
            value = value.to(torch.int32)
        tensor = graph.const(tensor_array(value), tosa_dtype(node.meta["val"].dtype), stem=node.name)
        Composer(graph, node).finish(tensor)
