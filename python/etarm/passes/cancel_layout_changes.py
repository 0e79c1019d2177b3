"""CancelLayoutChanges: the TOSA-level clean-up of a finished ``TosaGraph`` before it is serialized.

Visitors convert layouts locally (e.g. NCHW -> NHWC around every convolution), which
leaves chains such as ``TRANSPOSE -> CLAMP -> TRANSPOSE^-1`` between two spatial ops.
The rewrites here, repeated until nothing changes, remove them:

- TRANSPOSE / RESHAPE / CAST-to-float of a constant becomes a constant (computed at compile time);
- a TRANSPOSE of a TRANSPOSE reads the first one's input with the composed permutation,
  a RESHAPE of a RESHAPE reads the first one's input;
- an identity TRANSPOSE (perm 0..n-1) or same-shape RESHAPE is bypassed;
- a TRANSPOSE or RESHAPE feeding an elementwise op (or a TRANSPOSE feeding CONCAT) is moved
  after it when every data operand comes from the same layout change, so it can meet
  and cancel the next one;
- identical TRANSPOSEs / RESHAPEs of one tensor are merged;
- finally, a TRANSPOSE moves back up a chain of elementwise ops where that lets it merge
  with the same TRANSPOSE of the chain's input;
- ops whose results nobody reads are dropped.

Graph outputs keep their tensors: a rewrite never renames or bypasses a graph output.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np
import tosa_serializer as ts

from etarm.passes.base import TosaPass
from etarm.tosa_ir.graph import TosaGraph, TosaOp, TosaTensor
from etarm.tosa_ir.mapping import numpy_dtype


def _ops(*names: str) -> set:
    return {getattr(ts.Op, name) for name in names if hasattr(ts.Op, name)}


# Elementwise ops and which inputs are their (equal-rank, broadcasting) data operands; the
# other inputs (MUL's shift, NEGATE's zero points, TABLE's table) are left as they are.
_UNARY = _ops(
    "ABS", "BITWISE_NOT", "CEIL", "CLZ", "COS", "EXP", "FLOOR", "LOG", "LOGICAL_NOT", "RECIPROCAL",
    "RSQRT", "SIN", "ERF", "SIGMOID", "TANH", "CLAMP", "CAST", "IDENTITY", "NEGATE", "TABLE",
)
_BINARY = _ops(
    "ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "POW", "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR",
    "BITWISE_XOR", "INTDIV", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR", "LOGICAL_LEFT_SHIFT",
    "LOGICAL_RIGHT_SHIFT", "EQUAL", "GREATER", "GREATER_EQUAL",
)


def _data_operands(op: TosaOp) -> tuple[int, ...] | None:
    if op.op in _UNARY:
        return (0,)
    if op.op in _BINARY:
        return (0, 1)
    if op.op == ts.Op.SELECT:
        return (0, 1, 2)
    if op.op == ts.Op.RESCALE and not op.attr_args[2]:  # per-tensor only: per-channel scales follow the last axis
        return (0,)
    return None


def _perm(op: TosaOp) -> tuple[int, ...]:
    return tuple(int(p) for p in op.attr_args[0])


def _inverse(perm) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argsort(perm))


class _Uses:
    """Who produces and who reads each tensor of the graph (rebuilt every round)."""

    def __init__(self, graph: TosaGraph):
        self.graph = graph
        self.producer: dict[str, TosaOp] = {}
        self.readers: dict[str, list[TosaOp]] = defaultdict(list)
        for op in graph.ops:
            for name in op.outputs:
                self.producer[name] = op
            for name in dict.fromkeys(op.inputs):
                self.readers[name].append(op)
        self.outputs = set(graph.outputs)

    def is_constant(self, name: str) -> bool:
        return name in self.graph.constants

    def used(self, name: str) -> bool:
        return name in self.outputs or bool(self.readers.get(name))

    def read_only_by(self, name: str, op: TosaOp) -> bool:
        return name not in self.outputs and all(reader is op for reader in self.readers.get(name, []))

    def layout_op(self, name: str) -> TosaOp | None:
        producer = self.producer.get(name)
        return producer if producer is not None and producer.op in (ts.Op.TRANSPOSE, ts.Op.RESHAPE) else None


def _replace_reads(graph: TosaGraph, old: str, new: str) -> None:
    for op in graph.ops:
        op.inputs = [new if name == old else name for name in op.inputs]


# --- rewrites: each returns True if it changed the graph -------------------------------------


_FLOATS = (ts.DType.FP32, ts.DType.FP16)


def _folded_value(graph: TosaGraph, op: TosaOp) -> np.ndarray | None:
    """The constant result of a TRANSPOSE / RESHAPE / CAST-to-float of a constant, or None."""
    data = graph.constants[op.inputs[0]]
    out = graph.tensors[op.outputs[0]]
    if op.op == ts.Op.TRANSPOSE:
        return np.transpose(data, _perm(op))
    if op.op == ts.Op.RESHAPE:
        return data.reshape(out.shape)
    if op.op == ts.Op.CAST and out.dtype in _FLOATS and graph.tensors[op.inputs[0]].dtype != ts.DType.BF16:
        # To a float, numpy's conversion is TOSA's (round to nearest even); other casts are left alone.
        return data.astype(numpy_dtype(out.dtype))
    return None


def _fold_constants(graph: TosaGraph, uses: _Uses) -> bool:
    folded = []
    for op in graph.ops:  # in order, so a chain of foldable ops folds in one pass
        if op.op not in (ts.Op.TRANSPOSE, ts.Op.RESHAPE, ts.Op.CAST) or not uses.is_constant(op.inputs[0]):
            continue
        if op.outputs[0] in uses.outputs:
            continue
        data = _folded_value(graph, op)
        if data is not None:
            graph.constants[op.outputs[0]] = np.ascontiguousarray(data)
            folded.append(op)
    folded_ids = {id(op) for op in folded}
    graph.ops[:] = [op for op in graph.ops if id(op) not in folded_ids]
    return bool(folded)


def _compose_layout_chains(graph: TosaGraph, uses: _Uses) -> bool:
    changed = False
    for op in graph.ops:
        if op.op not in (ts.Op.TRANSPOSE, ts.Op.RESHAPE):
            continue
        first = uses.layout_op(op.inputs[0])
        if first is None or first.op != op.op:
            continue
        op.inputs = [first.inputs[0], *op.inputs[1:]]
        if op.op == ts.Op.TRANSPOSE:
            inner = _perm(first)
            op.attr_args = ([inner[p] for p in _perm(op)], *op.attr_args[1:])
        changed = True
    return changed


def _is_identity(graph: TosaGraph, op: TosaOp) -> bool:
    if op.op == ts.Op.TRANSPOSE:
        return _perm(op) == tuple(range(len(_perm(op))))
    return op.op == ts.Op.RESHAPE and graph.tensors[op.inputs[0]].shape == graph.tensors[op.outputs[0]].shape


def _bypass_identities(graph: TosaGraph, uses: _Uses) -> bool:
    identities = [op for op in graph.ops if _is_identity(graph, op)]
    redirect = {op.outputs[0]: op.inputs[0] for op in identities if op.outputs[0] not in uses.outputs}
    if redirect:
        def target(name: str) -> str:
            while name in redirect:
                name = redirect[name]
            return name

        for op in graph.ops:
            op.inputs = [target(name) for name in op.inputs]
        bypassed = {id(op) for op in identities if op.outputs[0] in redirect}
        graph.ops[:] = [op for op in graph.ops if id(op) not in bypassed]
        return True
    for op in identities:
        # A graph output keeps its tensor: the source's producer writes it directly instead.
        source, out = op.inputs[0], op.outputs[0]
        producer = uses.producer.get(source)
        if producer is not None and uses.read_only_by(source, op):
            producer.outputs = [out if name == source else name for name in producer.outputs]
            graph.ops.remove(op)
            return True
    return False


class _Sinking:
    """Moves a layout change (the same one on every data operand) below an elementwise op or
    CONCAT, so that it can meet the next layout change.

    ``shared``: also when other ops read the layout change's result (it then stays for them).
    ``mixed``: also when some operands come without that layout change; they get the inverse
    TRANSPOSE. Those inserted TRANSPOSEs are never moved themselves (that would undo the move).
    """

    def __init__(self, shared: bool = False, mixed: bool = False):
        self.shared = shared or mixed
        self.mixed = mixed
        self.inserted: set[int] = set()  # id() of the inverse TRANSPOSEs added for mixed operands

    def __call__(self, graph: TosaGraph, uses: _Uses) -> bool:
        rewritten: list[TosaOp] = []
        replacements: dict[int, list[TosaOp]] = {}
        moved_outputs: set[str] = set()  # their producer changed: ``uses`` is stale for them
        for op in graph.ops:
            operands = tuple(range(len(op.inputs))) if op.op == ts.Op.CONCAT else _data_operands(op)
            if not operands or len(op.outputs) != 1 or moved_outputs.intersection(op.inputs):
                continue
            rewrite = self._new_inputs(graph, uses, op, operands)
            if rewrite is None:
                continue
            layout, inputs, added = rewrite
            out = graph.tensors[op.outputs[0]]
            if layout.op == ts.Op.TRANSPOSE:
                inner_shape = tuple(out.shape[i] for i in _inverse(_perm(layout)))
            else:
                inner_shape = graph.tensors[layout.inputs[0]].shape
            inner = graph.temp(inner_shape, out.dtype, stem="sunk")
            op.inputs = inputs
            op.outputs = [inner.name]
            if op.op == ts.Op.CONCAT:
                op.attr_args = (_perm(layout)[op.attr_args[0]],)
            moved = TosaOp(layout.op, [inner.name, *layout.inputs[1:]], [out.name], layout.attr_args)
            replacements[id(op)] = [*added, op, moved]
            self.inserted.update(id(a) for a in added)
            moved_outputs.add(out.name)
        if not replacements:
            return False
        for op in graph.ops:
            rewritten.extend(replacements.get(id(op), [op]))
        graph.ops[:] = rewritten
        return True

    def merge_duplicates(self, graph: TosaGraph, uses: _Uses) -> bool:
        """Two TRANSPOSEs (or RESHAPEs) of the same tensor to the same result become one, which
        stays unmovable if either was (else moving it would undo a mixed move)."""
        seen: dict[tuple, TosaOp] = {}
        changed = False
        for op in list(graph.ops):
            if op.op not in (ts.Op.TRANSPOSE, ts.Op.RESHAPE):
                continue
            (out,) = op.outputs
            key = (op.op, op.inputs[0], graph.tensors[out].shape, repr(op.attr_args))
            kept = seen.setdefault(key, op)
            if kept is op or out in uses.outputs:
                continue
            if id(op) in self.inserted:
                self.inserted.add(id(kept))
            _replace_reads(graph, out, kept.outputs[0])
            graph.ops.remove(op)
            changed = True
        return changed

    def _layout(self, uses: _Uses, name: str) -> TosaOp | None:
        layout = uses.layout_op(name)
        return None if layout is None or id(layout) in self.inserted else layout

    def _new_inputs(self, graph: TosaGraph, uses: _Uses, op: TosaOp, operands):
        """(layout op to move below ``op``, ``op``'s new inputs, ops to insert before it) or None."""
        layouts = {i: self._layout(uses, op.inputs[i]) for i in operands}
        moved = [layout for layout in layouts.values() if layout is not None]
        if not moved:
            return None
        first = moved[0]
        if op.op == ts.Op.CONCAT and first.op != ts.Op.TRANSPOSE:
            return None
        out_shape = graph.tensors[op.outputs[0]].shape
        plain = [i for i, layout in layouts.items() if layout is None and not uses.is_constant(op.inputs[i])]
        if plain and not (self.mixed and first.op == ts.Op.TRANSPOSE):
            return None
        for i, layout in layouts.items():
            name = op.inputs[i]
            if layout is None:
                continue
            if layout.op != first.op or layout.attr_args != first.attr_args:
                return None
            if name in uses.outputs or not (self.shared or uses.read_only_by(name, op)):
                return None
            if first.op == ts.Op.RESHAPE and (
                graph.tensors[name].shape != out_shape
                or graph.tensors[layout.inputs[0]].shape != graph.tensors[first.inputs[0]].shape
            ):
                return None  # a reshape only commutes with an elementwise op without broadcasting
        inputs, added = list(op.inputs), []
        for i, layout in layouts.items():
            tensor = graph.tensors[op.inputs[i]]
            if layout is not None:
                inputs[i] = layout.inputs[0]
            elif i in plain:
                inverse = _inverse(_perm(first))
                undone = graph.temp([tensor.shape[p] for p in inverse], tensor.dtype, stem="unsunk")
                added.append(TosaOp(ts.Op.TRANSPOSE, [tensor.name], [undone.name], (list(inverse),)))
                inputs[i] = undone.name
            else:
                constant = _constant_before(graph, tensor, first, out_shape)
                if constant is None:
                    return None
                inputs[i] = constant.name
        return first, inputs, added


class _Hoisting:
    """Moves a TRANSPOSE above a chain of elementwise ops (each read only by the next, their other
    operands constants) when the tensor at the chain's top has the same TRANSPOSE already: the
    two then merge. Undoes sinking that went too far (``x + f(relu(x))`` with f channels-last)."""

    def __call__(self, graph: TosaGraph, uses: _Uses) -> bool:
        for index, op in enumerate(graph.ops):
            if op.op != ts.Op.TRANSPOSE or not self._meets_same_transpose(graph, uses, op):
                continue
            producer = uses.producer[op.inputs[0]]
            operand = self._chain_operand(graph, uses, producer, op.inputs[0], op)
            source = graph.tensors[producer.inputs[operand]]
            perm = _perm(op)
            lifted = graph.temp([source.shape[p] for p in perm], source.dtype, stem="hoisted")
            transpose = TosaOp(ts.Op.TRANSPOSE, [source.name], [lifted.name], op.attr_args)
            inputs = list(producer.inputs)
            for i in _data_operands(producer):
                if i == operand:
                    inputs[i] = lifted.name
                else:
                    constant = graph.tensors[inputs[i]]
                    data = np.ascontiguousarray(np.transpose(graph.constants[constant.name], perm))
                    inputs[i] = graph.const(data, constant.dtype, stem="hoisted_const").name
            producer.inputs = inputs
            producer.outputs = [op.outputs[0]]
            position = next(i for i, candidate in enumerate(graph.ops) if candidate is producer)
            graph.ops.insert(position, transpose)
            graph.ops.remove(op)
            return True
        return False

    @staticmethod
    def _chain_operand(graph: TosaGraph, uses: _Uses, producer: TosaOp | None, name: str, reader: TosaOp) -> int | None:
        """The one non-constant data operand of ``producer`` if ``reader`` can move above it."""
        if producer is None or len(producer.outputs) != 1 or not uses.read_only_by(name, reader):
            return None
        operands = _data_operands(producer)
        if not operands:
            return None
        rank = graph.tensors[name].rank
        variable = [i for i in operands if not uses.is_constant(producer.inputs[i])]
        constants_fit = all(graph.tensors[producer.inputs[i]].rank == rank for i in operands)
        return variable[0] if len(variable) == 1 and constants_fit else None

    def _meets_same_transpose(self, graph: TosaGraph, uses: _Uses, transpose: TosaOp) -> bool:
        name, reader = transpose.inputs[0], transpose
        while True:
            producer = uses.producer.get(name)
            operand = self._chain_operand(graph, uses, producer, name, reader)
            if operand is None:
                return False
            source = producer.inputs[operand]
            for other in uses.readers.get(source, []):
                if other is not producer and other.op == ts.Op.TRANSPOSE and other.attr_args == transpose.attr_args:
                    return True
            name, reader = source, producer


def _constant_before(graph: TosaGraph, tensor: TosaTensor, layout: TosaOp, out_shape) -> TosaTensor | None:
    """The constant that ``layout`` turns into ``tensor``, or None if there is none."""
    data = graph.constants[tensor.name]
    if layout.op == ts.Op.TRANSPOSE:
        if data.ndim != len(_perm(layout)):
            return None
        return graph.const(np.ascontiguousarray(np.transpose(data, _inverse(_perm(layout)))), tensor.dtype, stem="sunk_const")
    source_shape = graph.tensors[layout.inputs[0]].shape
    if tensor.shape == tuple(out_shape):
        return graph.const(data.reshape(source_shape), tensor.dtype, stem="sunk_const")
    flat = data.reshape(-1)
    if flat.size and np.all(flat == flat[0]):  # a broadcast splat: the same value at any shape
        return graph.const(flat[:1].reshape((1,) * len(source_shape)), tensor.dtype, stem="sunk_const")
    return None


def _drop_unused(graph: TosaGraph, uses: _Uses) -> bool:
    kept = [op for op in graph.ops if not op.outputs or any(uses.used(name) for name in op.outputs)]
    if len(kept) == len(graph.ops):
        return False
    graph.ops[:] = kept
    return True


def _simplify(graph: TosaGraph, sinking: _Sinking, hoisting: bool = False) -> None:
    """Applies the rewrites until none applies (each keeps the graph's meaning, so a stop
    at the round limit, a guard against a missed cycle, leaves a valid graph)."""
    moving = _Hoisting() if hoisting else sinking
    rewrites = (_fold_constants, _compose_layout_chains, _bypass_identities, sinking.merge_duplicates, moving, _drop_unused)
    for _ in range(10 * len(graph.ops) + 100):
        uses = _Uses(graph)  # a rewrite that changes nothing leaves it valid for the next one
        if not any(rewrite(graph, uses) for rewrite in rewrites):
            return


def _cost(graph: TosaGraph) -> tuple[int, int]:
    ops = graph.emitted_ops()
    return ops.count("TRANSPOSE"), len(ops)


class CancelLayoutChanges(TosaPass):
    """Removes layout round trips (TRANSPOSE/RESHAPE chains), folds constants, drops unused ops.

    TRANSPOSEs first move down past elementwise ops. The bolder moves pay off only if the
    TRANSPOSEs they create meet again: moving one whose result several ops read
    (``x * sigmoid(x)`` between two convolutions), or adding the inverse TRANSPOSE to an
    operand without one (a residual ``x + conv(x)``). Each is tried in turn, and so is moving
    TRANSPOSEs back up where that merges them; a try is kept only if the graph ends up with
    fewer TRANSPOSEs (or as many and fewer ops).
    """

    def run(self, graph: TosaGraph) -> int:
        """Returns how many ops it removed."""
        ops_before = len(graph.ops)
        _simplify(graph, _Sinking())
        for bolder, hoisting in ((_Sinking(shared=True), False), (_Sinking(mixed=True), False), (_Sinking(), True)):
            before = _cost(graph)
            saved_ops = [dataclasses.replace(op, inputs=list(op.inputs), outputs=list(op.outputs)) for op in graph.ops]
            saved_constants = dict(graph.constants)
            _simplify(graph, bolder, hoisting)
            if _cost(graph) >= before:
                graph.ops[:], graph.constants = saved_ops, saved_constants
        return ops_before - len(graph.ops)
