"""What the Cortex-M passes share when they match a quantized pattern: the reason a node keeps
its portable kernel (for the report), int8 / int16 checks, fused activations as clamp ranges, constants."""

from __future__ import annotations

import torch
from executorch.backends.transforms.utils import delete_constant_placeholder
from torch.export import ExportedProgram

from etarm.op_names import op_name
from etarm.tosa_ir.quant_params import QuantParams, is_dequantize, is_fused_activation, is_quantize, qparams_of

# node.meta key: why a node stays on a portable kernel (CortexMPartitioner reports it).
REASON = "cortex_m_reason"
INT8 = (torch.int8, -128, 127)


class NotLowered(Exception):
    """Why a pattern stays on the portable kernels (its message goes into the report)."""


def int8_per_tensor(params: QuantParams) -> bool:
    return not params.per_channel and (params.dtype, params.qmin, params.qmax) == INT8


def activation_dtype(params: QuantParams) -> torch.dtype | None:
    """The activation type of the kernels ``params`` quantize to: int8 per tensor over [-128, 127] (a8w8), or int16
    per tensor and symmetric over [-32767, 32767] (zero point 0: CMSIS-NN's s16 kernels take no offsets; a16w8, the
    kernels' int16 range, ops/library.py saturation); None otherwise."""
    if int8_per_tensor(params):
        return torch.int8
    symmetric = not params.per_channel and int(params.zero_point) == 0
    if symmetric and (params.dtype, params.qmin, params.qmax) == (torch.int16, -32767, 32767):
        return torch.int16
    return None


# What a quantized result must be, by the activation type of its operands.
_EXPECTED = {
    torch.int8: "int8 with per-tensor parameters over [-128, 127]",
    torch.int16: "int16 with symmetric per-tensor parameters over [-32767, 32767]",
}


def int8_pattern_problem(node: torch.fx.Node, operands) -> str | None:
    """None if each of ``operands`` is a dequantized int8 tensor and ``node`` only feeds one int8 quantize
    (dequantize -> node -> quantize, all per tensor); else why not."""
    return pattern_problem(node, operands, (torch.int8,))


def pattern_problem(node: torch.fx.Node, operands, dtypes) -> str | None:
    """None if each of ``operands`` is a dequantized tensor and ``node`` only feeds one quantize (dequantize ->
    node -> quantize), all of one activation type (activation_dtype) among ``dtypes``; else why not."""
    if not all(is_dequantize(a) for a in operands):
        return "an operand is not a dequantized int8 tensor (float or a Python number)"
    users = list(node.users)
    if len(users) != 1 or not is_quantize(users[0]):
        return "its result is not quantized directly (float consumer or fused activation)"
    found = {activation_dtype(qparams_of(n)) for n in (*operands, users[0])}
    if len(found) != 1 or found.pop() not in dtypes:
        return "not " + ", nor ".join(_EXPECTED[d] for d in dtypes)
    return None


def lower_each(graph: torch.fx.Graph, names, lower) -> bool:
    """Calls ``lower(node)`` on each call of an op in ``names``: it returns None once it replaced the
    node, else why the node stays portable (kept in its meta for the report). True if any was replaced."""
    changed = False
    for node in [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) in names]:
        reason = lower(node)
        if reason is None:
            changed = True
        else:
            node.meta[REASON] = reason
    if changed:
        graph.eliminate_dead_code()
    return changed


def lower_each_reading_constants(program: ExportedProgram | None, graph: torch.fx.Graph, nodes, replace) -> bool:
    """Calls ``replace(node)`` on each of ``nodes`` (patterns with constant weights, which it reads
    from ``program``); it raises NotLowered with why a node stays portable (kept in its meta for the
    report). Drops the constants no node reads any more. True if any was replaced."""
    changed = False
    for node in nodes:
        try:
            if program is None:
                raise NotLowered("its weights are not readable without the program")
            replace(node)
            changed = True
        except NotLowered as why:
            node.meta[REASON] = str(why)
    if changed:
        drop_unread_constants(program, graph)
    return changed


def drop_unread_constants(program: ExportedProgram, graph: torch.fx.Graph) -> None:
    """Removes dead nodes, then the constants no node reads any more."""
    graph.eliminate_dead_code()
    names = constant_names(program)
    for node in [n for n in graph.nodes if n.op == "placeholder" and not n.users and n.name in names]:
        delete_constant_placeholder(program, node)


def replace_pattern(graph: torch.fx.Graph, node: torch.fx.Node, target, args) -> torch.fx.Node:
    """Replaces ``node`` and the quantize it feeds by ``target(*args)``, which takes the quantize's value."""
    quantize = next(iter(node.users))
    with graph.inserting_before(quantize):
        replacement = graph.call_function(target, tuple(args))
    replacement.meta = dict(quantize.meta)  # its value: the int8 result
    quantize.replace_all_uses_with(replacement)
    graph.erase_node(quantize)
    graph.erase_node(node)
    return replacement


def quantized_result(
    node: torch.fx.Node, dtype: torch.dtype = torch.int8
) -> tuple[torch.fx.Node | None, torch.fx.Node]:
    """(fused activation or None, quantize) when ``node``'s result is quantized directly or through one relu /
    relu6 / hardtanh / clamp (the quantizer fuses them) to ``dtype`` (activation_dtype) per tensor."""
    users = list(node.users)
    activation = None
    if len(users) == 1 and is_fused_activation(users[0]):
        activation = users[0]
        users = list(activation.users)
    if len(users) != 1 or not is_quantize(users[0]):
        raise NotLowered("its result is not quantized directly (a float consumer, or a quantize after the activation)")
    if activation_dtype(qparams_of(users[0])) != dtype:
        raise NotLowered(f"its output is not {_EXPECTED[dtype]}")
    return activation, users[0]


def activation_range(activation: torch.fx.Node | None, out: QuantParams) -> tuple[int, int]:
    """A fused relu / relu6 / hardtanh / clamp as bounds in output steps (the output's [qmin, qmax] without one)."""
    if activation is None:
        return out.qmin, out.qmax
    name = op_name(activation.target)
    if name.startswith("aten.relu6"):
        low, high = 0.0, 6.0
    elif name.startswith("aten.relu"):
        low, high = 0.0, None
    elif name.startswith("aten.hardtanh"):
        low = activation.args[1] if len(activation.args) > 1 else activation.kwargs.get("min_val", -1.0)
        high = activation.args[2] if len(activation.args) > 2 else activation.kwargs.get("max_val", 1.0)
    else:  # clamp
        low = activation.args[1] if len(activation.args) > 1 else activation.kwargs.get("min")
        high = activation.args[2] if len(activation.args) > 2 else activation.kwargs.get("max")
    if any(isinstance(b, torch.fx.Node) for b in (low, high)):
        raise NotLowered("its activation's bounds are tensors")

    def step(bound, default: int) -> int:
        if bound is None:
            return default
        return int(out.quantize(torch.tensor([float(bound)]))[0])

    low_q, high_q = step(low, out.qmin), step(high, out.qmax)
    if low_q > high_q:
        raise NotLowered("its activation's range is empty")
    return low_q, high_q


def constant(node, read, what: str) -> torch.Tensor:
    """The value of a constant placeholder (``read``: fold_quantize_nodes.constant_reader)."""
    value = read(node) if isinstance(node, torch.fx.Node) and node.op == "placeholder" else None
    if value is None:
        raise NotLowered(f"its {what} is not a constant")
    return value


def constant_names(program: ExportedProgram) -> set[str]:
    signature = program.graph_signature
    return {
        *signature.inputs_to_parameters,
        *signature.inputs_to_buffers,
        *signature.inputs_to_lifted_tensor_constants,
    }
