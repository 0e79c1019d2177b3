"""QuantizedBmmAsCortexM: a matrix product of two quantized activations, dequantize(a), dequantize(b) -> bmm (or mm)
-> quantize, as cortex_m.quantized_bmm (the project's kernel: the CMSIS-NN snapshot has no arm_batch_matmul_s8).

torch.matmul of rank 3 or 4 reaches the edge program as expand_copy / view_copy on each operand before an aten.bmm and
a view_copy after it. Those move values only, so they run on the integer tensors: an expand to the same shape goes, an
operand's expand of a batch of 1 goes too (the kernel broadcasts it), the views stay (to_executorch makes them free).
A right operand that is a quantized permute swapping its last two dims (k^T in attention) is read untransposed with
``transpose_other``, so it needs no transpose op. A relu / relu6 / hardtanh / clamp fused into the product becomes a
cortex_m.quantized_clamp of its integers at scale 1 (nothing where the output's range already holds its bounds).
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import REASON, NotLowered, activation_dtype, activation_range
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.lowering import quantized
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize, is_fused_activation, is_quantize, qparams_of

_BMM = exir_ops.edge.cortex_m.quantized_bmm.default
_VIEW = exir_ops.edge.aten.view_copy.default
_EXPAND = exir_ops.edge.aten.expand_copy.default
_CLONE = exir_ops.edge.dim_order_ops._clone_dim_order.default
_MOVES = {
    "aten.view_copy.default": _VIEW,
    "aten.expand_copy.default": _EXPAND,
    "dim_order_ops._clone_dim_order.default": _CLONE,
}
_CLAMP = exir_ops.edge.cortex_m.quantized_clamp.default
_PRODUCTS = ("aten.bmm.default", "aten.mm.default")
# The longest sums the accumulators hold whatever the values: int8 (|q - zp| <= 255) in int32, int16 (|q| <= 2**15)
# in TOSA's int48.
LARGEST_DEPTH = {torch.int8: (2**31 - 1) // (255 * 255), torch.int16: 2**17 - 1}


def _is_call(node, names) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and op_name(node.target) in names


def _shape(node: torch.fx.Node) -> list[int]:
    return list(node.meta["val"].shape)


class _Operand:
    """An operand as its integer tensor and the moves (view_copy / expand_copy / contiguous clones, with their shapes)
    that lead from it to the product; ``transposed`` when those start from the integer tensor with its last two dims swapped."""

    def __init__(self, value: torch.fx.Node):
        self.moves: list[tuple[object, list[int]]] = []
        while _is_call(value, _MOVES) and _plain_move(value):
            self.moves.insert(0, (_MOVES[op_name(value.target)], _shape(value)))
            value = value.args[0]
        if not is_dequantize(value):
            raise NotLowered("an operand is not a dequantized int8 or int16 tensor (float, or a constant)")
        self.dequantize = value
        self.integers = value.args[0]
        self.transposed = False

    def untranspose(self) -> None:
        """Reads through a quantize -> permute_copy swapping the last two dims -> dequantize of equal parameters."""
        quantize = self.integers
        if not is_quantize(quantize):
            return
        permute = quantize.args[0]
        if not _is_call(permute, ("aten.permute_copy.default",)) or not is_dequantize(permute.args[0]):
            return
        rank = len(_shape(permute))
        swap = [*range(rank - 2), rank - 1, rank - 2]
        if rank < 2 or [d % rank for d in permute.args[1]] != swap:
            return
        if not qparams_of(permute.args[0]) == qparams_of(quantize) == qparams_of(self.dequantize):
            return
        last_two = _shape(permute)[-2:]
        if any(shape[-2:] != last_two for _, shape in self.moves):
            return  # a view reaching into the last two dims: not a plain transpose
        self.moves = [(target, [*shape[:-2], shape[-1], shape[-2]]) for target, shape in self.moves]
        self.integers = permute.args[0].args[0]
        self.transposed = True

    def emit(self, graph: torch.fx.Graph) -> torch.fx.Node:
        """The moves on the integer tensor, without expands that change nothing or only broadcast a batch of 1 into
        the product (the kernel broadcasts it)."""
        moves, shape = [], _shape(self.integers)
        for target, after in self.moves:
            if after != shape:  # a clone keeps its shape: never emitted
                moves.append((target, after))
                shape = after
        before_last = moves[-2][1] if len(moves) > 1 else _shape(self.integers)
        if moves and moves[-1][0] is _EXPAND and _batch_broadcast(before_last, shape):
            moves.pop()
        value = self.integers
        for target, after in moves:
            value = _call(graph, target, (value, after), _fake_like(value, after))
        return value


def _plain_move(node: torch.fx.Node) -> bool:
    """A view or expand, or a clone into the contiguous order (after an expand: the same values, dropped)."""
    if node.target is not _CLONE:
        return True
    order = node.kwargs.get("dim_order")
    return order is None or list(order) == list(range(len(_shape(node))))


def _batch_broadcast(before: list[int], after: list[int]) -> bool:
    return len(before) == len(after) == 3 and before[0] == 1 and before[1:] == after[1:]


def _fake_like(value: torch.fx.Node, shape) -> torch.Tensor:
    val = value.meta["val"]
    with val.fake_mode:
        return torch.empty(shape, dtype=val.dtype)


def _call(graph: torch.fx.Graph, target, args, val: torch.Tensor) -> torch.fx.Node:
    node = graph.call_function(target, tuple(args))
    node.meta["val"] = val
    return node


def _requantization(dtype: torch.dtype, scale: float) -> tuple[int, int]:
    """(multiplier, shift) of ``scale`` as the TOSA lowering rescales the accumulator: 32-bit multipliers for int8's
    int32, TOSA's 16-bit ones for int16's int48 (in the multiplier's top bits)."""
    if dtype == torch.int8:
        return multiplier_and_shift(scale, largest_shift=30)
    multiplier, right_shift = quantized.multiplier_and_shift(scale, scale32=False)
    return multiplier << 16, 15 - right_shift


class QuantizedBmmAsCortexM(ProgramPass):
    """Replaces dequantize(a), dequantize(b) -> bmm / mm -> quantize (int8, or symmetric int16; per tensor) by
    cortex_m.quantized_bmm."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        changed = False
        for node in [n for n in graph.nodes if _is_call(n, _PRODUCTS)]:
            try:
                self._lower(graph, node)
                changed = True
            except NotLowered as why:
                # An mm QuantizedLinearAsCmsisNn refused as a linear keeps its reason too.
                linear = node.meta.get(REASON)
                node.meta[REASON] = str(why) if linear is None else f"{linear}; as a product of activations: {why}"
        if changed:
            graph.eliminate_dead_code()
        return changed

    @staticmethod
    def _lower(graph: torch.fx.Graph, node: torch.fx.Node) -> None:
        a, b = _Operand(node.args[0]), _Operand(node.args[1])
        users = list(node.users)
        view = users[0] if len(users) == 1 and _is_call(users[0], ("aten.view_copy.default",)) else None
        if view is not None:
            users = list(view.users)
        activation = users[0] if len(users) == 1 and is_fused_activation(users[0]) else None
        if activation is not None:
            users = list(activation.users)
        if len(users) != 1 or not is_quantize(users[0]):
            raise NotLowered("its result is not quantized directly (a float consumer)")
        quantize = users[0]
        params = [qparams_of(a.dequantize), qparams_of(b.dequantize), qparams_of(quantize)]
        found = {activation_dtype(p) for p in params}
        dtype = found.pop() if len(found) == 1 else None
        if dtype is None:
            raise NotLowered(
                "not int8 with per-tensor parameters over [-128, 127], nor int16 with symmetric per-tensor "
                "parameters over [-32767, 32767], for both operands and the result"
            )
        depth = _shape(node.args[0])[-1]
        if depth > LARGEST_DEPTH[dtype]:
            raise NotLowered(
                f"its sums of {depth} products may overflow the accumulator (at most {LARGEST_DEPTH[dtype]})"
            )
        try:
            multiplier, shift = _requantization(
                dtype, float(params[0].scale) * float(params[1].scale) / float(params[2].scale)
            )
            bounds = activation_range(activation, params[2])
        except EtarmError as error:
            raise NotLowered(str(error)) from None
        b.untranspose()
        with graph.inserting_before(quantize):
            lhs, rhs = a.emit(graph), b.emit(graph)
            args = [lhs, int(params[0].zero_point), rhs, int(params[1].zero_point), b.transposed]
            args += [int(params[2].zero_point), multiplier, shift]
            product = _call(graph, _BMM, args, _fake_like(quantize, _shape(node)))
            result = product if view is None else _call(graph, _VIEW, (product, _shape(view)), quantize.meta["val"])
            if activation is not None and bounds != (params[2].qmin, params[2].qmax):
                # The fused activation on the product's integers, in its output steps (quantizing is monotonic, so
                # q(act(x)) = clamp(q(x), q(low), q(high))): a clamp at scale 1 (multiplier 2**30, shift 1).
                zero_point = int(params[2].zero_point)
                clamp_args = (result, zero_point, 1 << 30, 1, zero_point, *bounds)
                result = _call(graph, _CLAMP, clamp_args, quantize.meta["val"])
        result.meta = {**quantize.meta, "val": result.meta["val"]}
        quantize.replace_all_uses_with(result)
        for erased in (quantize, activation, view, node):
            if erased is not None:
                graph.erase_node(erased)
