"""The TOSA graph under construction: the one place that talks to tosa_serializer.

Node visitors write through a ``TosaGraph``: they look up the tensors of their fx
inputs with ``value``, create temporaries with ``temp`` and constants with ``const``,
and emit operators with ``op``/``emit``. The graph is held as plain Python objects
(``tensors``, ``ops``) until ``serialize``, so TOSA-level clean-ups (see
``tosa/cleanup.py``) can rewrite it first. Tensor names come from fx node names,
which keeps ``-i DIR`` dumps and reference-model errors traceable.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.tosa_ir.mapping import narrow_int64, numpy_dtype, tensor_array, tosa_dtype
from etarm.tosa_ir.specification import TosaSpecification


def _attribute_setters() -> dict:
    """Maps each TOSA op to its attribute constructor (Op.AVG_POOL2D -> 'AvgPool2dAttribute')."""

    def key(text: str) -> str:
        return text.replace("_", "").lower()

    methods = {key(m[: -len("Attribute")]): m for m in dir(ts.TosaSerializerAttribute) if m.endswith("Attribute")}
    return {op: methods[key(name)] for name, op in ts.Op.__members__.items() if key(name) in methods}


_ATTRIBUTE_SETTERS = _attribute_setters()


_COMPARISONS = (ts.Op.EQUAL, ts.Op.GREATER, ts.Op.GREATER_EQUAL)


@dataclasses.dataclass(frozen=True)
class TosaTensor:
    name: str
    shape: tuple[int, ...]
    dtype: object  # ts.DType

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclasses.dataclass
class TosaOp:
    op: object  # ts.Op
    inputs: list[str]
    outputs: list[str]
    attr_args: tuple
    # The fx node whose visitor emitted the op (lets target checks name the ATen op).
    origin: str | None = None


class TosaGraph:
    def __init__(self, spec: TosaSpecification, int16_internals: bool | None = None):
        self.spec = spec
        # Whether an int8 lowering may compute on int16 tensors inside (int16 TABLE and
        # MATMUL of the int16 extension): Ethos-U55/U65 take neither.
        has_int16 = spec.has_extension("int16")
        self.int16_internals = has_int16 if int16_internals is None else int16_internals and has_int16
        self.tensors: dict[str, TosaTensor] = {}
        self.constants: dict[str, np.ndarray] = {}  # tensor name -> data (shape operands too)
        self.inputs: list[str] = []
        self.outputs: list[str] = []
        self.ops: list[TosaOp] = []
        self._counter = itertools.count()
        self._values: dict[str, TosaTensor] = {}  # fx node name -> tensor
        self._items: dict[tuple[str, int], TosaTensor] = {}  # (fx node, index) -> tensor
        self.origin: str | None = None  # the fx node being lowered; ``op`` records it

    # --- tensors --------------------------------------------------------------
    def _new(self, stem: str, shape: Sequence[int], dtype) -> TosaTensor:
        tensor = TosaTensor(f"{stem}_{next(self._counter)}", tuple(int(d) for d in shape), dtype)
        self.tensors[tensor.name] = tensor
        return tensor

    def add_input(self, node: torch.fx.Node, shape: Sequence[int], dtype) -> TosaTensor:
        tensor = self._new(node.name, shape, dtype)
        self.inputs.append(tensor.name)
        self.bind(node, tensor)
        return tensor

    def const(self, values, dtype, shape: Sequence[int] | None = None, stem: str = "const") -> TosaTensor:
        array = np.asarray(values, dtype=numpy_dtype(dtype))
        if shape is not None:
            array = array.reshape(shape)
        tensor = self._new(stem, array.shape, dtype)
        self.constants[tensor.name] = array
        return tensor

    def bind_const(self, node: torch.fx.Node, values: torch.Tensor, dtype=None) -> TosaTensor:
        """Makes an fx placeholder that holds a parameter, buffer or constant a TOSA constant."""
        values = values.detach().cpu()
        if values.dtype == torch.int64:
            values = narrow_int64(values, f"constant '{node.name}'")
        tensor = self.const(tensor_array(values), dtype or tosa_dtype(values.dtype), stem=node.name)
        self.bind(node, tensor)
        return tensor

    def constant_data(self, tensor: TosaTensor) -> np.ndarray | None:
        """The data of a constant tensor (None if ``tensor`` is computed): lets visitors
        rearrange weights at compile time instead of emitting ops on constants."""
        return self.constants.get(tensor.name)

    def shape_const(self, values: Sequence[int]) -> TosaTensor:
        """A TOSA 1.0 shape operand (RESHAPE, PAD, SLICE and TILE take shapes as inputs)."""
        values = [int(v) for v in values]
        return self.const(np.array(values, dtype=np.int64), ts.DType.SHAPE, stem="shape")

    def temp(self, shape: Sequence[int], dtype, stem: str = "t") -> TosaTensor:
        return self._new(stem, shape, dtype)

    def bind(self, node: torch.fx.Node, tensor: TosaTensor) -> None:
        self._values[node.name] = tensor

    def value(self, node: torch.fx.Node) -> TosaTensor:
        try:
            return self._values[node.name]
        except KeyError:
            raise KeyError(f"no TOSA tensor for fx node '{node.name}' (visited out of order?)") from None

    def has_value(self, node: torch.fx.Node) -> bool:
        return node.name in self._values

    def bind_item(self, node: torch.fx.Node, index: int, tensor: TosaTensor) -> None:
        """Binds result ``index`` of a multi-output node (read through operator.getitem)."""
        self._items[(node.name, index)] = tensor

    def value_of_item(self, node: torch.fx.Node, index: int) -> TosaTensor:
        return self._items[(node.name, index)]

    def out(self, node: torch.fx.Node, dtype=None) -> TosaTensor:
        """Creates and binds the tensor that holds ``node``'s (single) result."""
        fake = node.meta["val"]
        tensor = self.temp(tuple(fake.shape), dtype or tosa_dtype(fake.dtype), stem=node.name)
        self.bind(node, tensor)
        return tensor

    # --- operators --------------------------------------------------------------
    def op(self, op, inputs: Sequence[TosaTensor], outputs: Sequence[TosaTensor], *attr_args) -> None:
        """Adds ``op``; ``attr_args`` are the arguments of its TOSA attribute, in spec order."""
        self.ops.append(TosaOp(op, [t.name for t in inputs], [t.name for t in outputs], attr_args, self.origin))

    def emit(self, op, inputs: Sequence[TosaTensor], shape, dtype, *attr_args) -> TosaTensor:
        """Emits ``op`` into a fresh temporary and returns it."""
        result = self.temp(shape, dtype)
        self.op(op, inputs, [result], *attr_args)
        return result

    # --- common sequences: the one way to emit each (constants fold at compile time) ---
    def reshape(self, tensor: TosaTensor, shape: Sequence[int]) -> TosaTensor:
        """RESHAPE; none for the same shape; a constant is reshaped at compile time."""
        shape = tuple(int(d) for d in shape)
        if shape == tensor.shape:
            return tensor
        data = self.constant_data(tensor)
        if data is not None:
            return self.const(data.reshape(shape), tensor.dtype, stem="folded")
        return self.emit(ts.Op.RESHAPE, [tensor, self.shape_const(shape)], shape, tensor.dtype)

    def transpose(self, tensor: TosaTensor, perm: Sequence[int]) -> TosaTensor:
        """TRANSPOSE (``out.shape[i] = in.shape[perm[i]]``); none for the identity; a constant
        is permuted at compile time."""
        perm = [int(p) for p in perm]
        if perm == list(range(tensor.rank)):
            return tensor
        data = self.constant_data(tensor)
        if data is not None:
            return self.const(np.ascontiguousarray(np.transpose(data, perm)), tensor.dtype, stem="folded")
        return self.emit(ts.Op.TRANSPOSE, [tensor], tuple(tensor.shape[p] for p in perm), tensor.dtype, perm)

    def binary(
        self, op, a: TosaTensor, b: TosaTensor, dtype=None, *attr_args, stem: str = "t", out: TosaTensor | None = None
    ) -> TosaTensor:
        """``op(a, b)`` with TOSA's broadcasting (ranks aligned first); MUL gets its zero shift.
        The result (``out`` if given) has ``dtype``, else bool for comparisons and ``a``'s type."""
        rank = max(a.rank, b.rank)
        a, b = self.to_rank(a, rank), self.to_rank(b, rank)
        inputs = [a, b]
        if op == ts.Op.MUL:
            # TOSA 1.0 MUL takes a shift operand: zero for floats and plain integer products.
            inputs.append(self.const([0], ts.DType.INT8, stem="shift"))
        if dtype is None:
            dtype = ts.DType.BOOL if op in _COMPARISONS else a.dtype
        shape = tuple(y if x == 1 else x for x, y in zip(a.shape, b.shape))
        result = out if out is not None else self.temp(shape, dtype, stem=stem)
        self.op(op, inputs, [result], *attr_args)
        return result

    def reshape_into(self, tensor: TosaTensor, out: TosaTensor) -> None:
        """RESHAPE ``tensor`` into the existing tensor ``out`` (e.g. a node's output)."""
        self.op(ts.Op.RESHAPE, [tensor, self.shape_const(out.shape)], [out])

    def to_rank(self, tensor: TosaTensor, rank: int) -> TosaTensor:
        """Prepends size-1 dimensions: TOSA broadcasts only between equal ranks."""
        if tensor.rank >= rank:
            return tensor
        return self.reshape(tensor, (1,) * (rank - tensor.rank) + tensor.shape)

    def identity(self, tensor: TosaTensor, into: TosaTensor) -> None:
        self.op(ts.Op.IDENTITY, [tensor], [into])

    # --- finishing -------------------------------------------------------------------
    def mark_output(self, tensor: TosaTensor) -> None:
        # An output must be a distinct computed tensor, not an input, a constant or a repeat.
        if tensor.name in self.outputs or tensor.name in self.inputs or tensor.name in self.constants:
            copy = self.temp(tensor.shape, tensor.dtype, stem="output")
            self.identity(tensor, copy)
            tensor = copy
        self.outputs.append(tensor.name)

    def emitted_ops(self) -> list[str]:
        return [op.op.name for op in self.ops]

    def serialize(self) -> bytes:
        serializer = ts.TosaSerializer(
            "", targetMajor=self.spec.major, targetMinor=self.spec.minor, targetPatch=0, targetDraft=False
        )
        block = serializer.currRegion.currBasicBlock
        used = set(self.inputs) | set(self.outputs)
        for op in self.ops:
            used.update(op.inputs)
            used.update(op.outputs)
        for name in self.inputs:
            self._add_tensor(block, self.tensors[name])
            block.addInput(name)
        for name, tensor in self.tensors.items():
            if name not in used or name in self.inputs:
                continue
            if name in self.constants:
                serializer.addConst(list(tensor.shape), tensor.dtype, self.constants[name], name=name)
            else:
                self._add_tensor(block, tensor)
        for op in self.ops:
            attr = ts.TosaSerializerAttribute()
            getattr(attr, _ATTRIBUTE_SETTERS[op.op])(*op.attr_args)
            block.addOperator(op.op, op.inputs, op.outputs, attr)
        for name in self.outputs:
            block.addOutput(name)
        return bytes(serializer.serialize())

    @staticmethod
    def _add_tensor(block, tensor: TosaTensor) -> None:
        block.addTensor(tensor.name, list(tensor.shape), tensor.dtype)
