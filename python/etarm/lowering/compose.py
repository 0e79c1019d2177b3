"""``Composer``: writes one fx node's result as a small expression of TOSA elementwise ops.

Operands are TOSA tensors, fx nodes or Python numbers; every tensor is raised to the
output's rank (TOSA broadcasts only between equal ranks) and numbers become constants
of the other operand's data type. Temporaries are named after the node, so dumps stay
traceable. Compositions of several ops (sqrt, division, ...) live in ``float_math``.
"""

from __future__ import annotations

import numbers

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import int_math
from etarm.lowering.dtype_rules import FLOAT, INT, SMALL_INT, dtype_kind, is_fp8
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import numpy_dtype, tosa_dtype

FLOAT_TOSA = (ts.DType.FP32, ts.DType.FP16, ts.DType.BF16)
# TOSA 1.0 CASTs fp8 only to and from FP16/BF16/FP32, and computes nothing else on it.
FP8_TOSA = (ts.DType.FP8E4M3, ts.DType.FP8E5M2)
INT_TOSA = (ts.DType.INT8, ts.DType.INT16, ts.DType.INT32)
_PROPAGATE = ts.NanPropagationMode.PROPAGATE


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(max(dims) for dims in zip(*shapes))


def _tosa_unary(op):
    """A Composer method that is the one TOSA operator ``op`` on ``x``."""

    def method(self, x) -> TosaTensor:
        return self.unary(op, x)

    return method


def _tosa_binary(op):
    """A Composer method that is the one TOSA operator ``op`` on ``a`` and ``b``."""

    def method(self, a, b) -> TosaTensor:
        return self.binary(op, a, b)

    return method


def _tosa_comparison(op):
    """A Composer method comparing ``a`` and ``b`` with the TOSA operator ``op`` (composed for
    int32 where the profile lacks it, see ``Composer._emulates_int32``)."""

    def method(self, a, b) -> TosaTensor:
        a, b = self._pair(a, b)
        if self._emulates_int32(a):
            return int_math.compare_int32(self, op, a, b)
        return self.binary(op, a, b, ts.DType.BOOL)

    return method


class Composer:
    def __init__(self, graph: TosaGraph, node: torch.fx.Node):
        self.graph = graph
        self.node = node
        self.out_meta = node.meta["val"]
        self.rank = len(self.out_meta.shape)

    @property
    def out_dtype(self):
        return tosa_dtype(self.out_meta.dtype)

    # --- operands -------------------------------------------------------------------
    def const(self, value, dtype) -> TosaTensor:
        """A scalar constant broadcastable against the output."""
        return self.graph.const([value], dtype, shape=(1,) * self.rank, stem=f"{self.node.name}_c")

    def tensor(self, arg, dtype=None) -> TosaTensor:
        """``arg`` (fx node, TOSA tensor or number) at the output's rank, cast to ``dtype`` if given."""
        if isinstance(arg, torch.fx.Node):
            arg = self.graph.value(arg)
        if isinstance(arg, TosaTensor):
            tensor = self.graph.to_rank(arg, self.rank)
            return self.cast(tensor, dtype) if dtype is not None else tensor
        if isinstance(arg, (numbers.Number, np.number, np.bool_)):
            return self.const(arg, dtype if dtype is not None else self.out_dtype)
        raise TypeError(f"unsupported operand {arg!r} of {self.node.name}")

    def _pair(self, a, b) -> tuple[TosaTensor, TosaTensor]:
        """Both operands as tensors; a number takes the data type of the other operand."""
        if isinstance(a, (TosaTensor, torch.fx.Node)):
            a = self.tensor(a)
            return a, self.tensor(b, a.dtype if not isinstance(b, (TosaTensor, torch.fx.Node)) else None)
        b = self.tensor(b)
        return self.tensor(a, b.dtype), b

    def temp(self, shape, dtype) -> TosaTensor:
        return self.graph.temp(shape, dtype, stem=self.node.name)

    def emit(self, op, inputs, shape, dtype, *attr_args) -> TosaTensor:
        result = self.temp(shape, dtype)
        self.graph.op(op, inputs, [result], *attr_args)
        return result

    # --- generic ---------------------------------------------------------------------------
    def unary(self, op, x, *attr_args) -> TosaTensor:
        x = self.tensor(x)
        return self.emit(op, [x], x.shape, x.dtype, *attr_args)

    def binary(self, op, a, b, dtype=None, *attr_args) -> TosaTensor:
        a, b = self._pair(a, b)
        return self.graph.binary(op, a, b, dtype or a.dtype, *attr_args, stem=self.node.name)

    def filled(self, value, dtype) -> TosaTensor:
        """A constant of the output's shape."""
        shape = tuple(int(d) for d in self.out_meta.shape)
        return self.graph.const(np.full(shape, value), dtype, stem=f"{self.node.name}_c")

    def cast(self, x, dtype) -> TosaTensor:
        """TOSA CAST (float->int rounds to nearest even; see ``convert`` for torch's semantics)."""
        x = self.tensor(x)
        if x.dtype == dtype:
            return x
        return self.emit(ts.Op.CAST, [x], x.shape, dtype)

    def convert(self, x, dtype) -> TosaTensor:
        """torch's dtype conversion with ops legal for the graph's profiles (see ``conversion_reason``).

        float->int truncates; bool<->float, which TOSA 1.0 cannot CAST, go through SELECT and
        a comparison; int<->bool without the INT profile go through float32 (exact for 0/1 and
        for the test against zero).
        """
        x = self.tensor(x)
        src = x.dtype
        if src == dtype:
            return x
        int_profile = self.graph.spec.supports_int()
        if src == ts.DType.BOOL:
            if dtype in FLOAT_TOSA:
                return self.select(x, 1.0, 0.0, dtype=dtype)
            if int_profile:
                return self.cast(x, dtype)
            return self.cast(self.select(x, 1.0, 0.0, dtype=ts.DType.FP32), dtype)
        if dtype == ts.DType.BOOL:
            if src in INT_TOSA and not int_profile:
                x = self.cast(x, ts.DType.FP32)
            elif src in INT_TOSA:
                return self.cast(x, dtype)
            return self.ne(x, 0)
        if src in FLOAT_TOSA and dtype in INT_TOSA:
            return self.cast(self.trunc(x), dtype)
        if src in FP8_TOSA and dtype in FP8_TOSA:
            # fp8 -> FP16 is exact, so this rounds once, as the direct conversion would.
            x = self.cast(x, ts.DType.FP16)
        elif {src, dtype} == {ts.DType.BF16, ts.DType.FP16}:
            # TOSA 1.0 has no BF16 <-> FP16 CAST; through FP32 (exact) it still rounds once.
            x = self.cast(x, ts.DType.FP32)
        return self.cast(x, dtype)

    def trunc(self, x) -> TosaTensor:
        x = self.tensor(x)
        return self.select(self.ge(x, 0.0), self.floor(x), self.ceil(x))

    def finish(self, result: TosaTensor) -> TosaTensor:
        """Binds ``result`` as the node's value (reshaped to the node's exact shape)."""
        shape = tuple(int(d) for d in self.out_meta.shape)
        if result.shape != shape:
            result = self.graph.reshape(result, shape)
        self.graph.bind(self.node, result)
        return result

    # --- arithmetic -----------------------------------------------------------------------
    add = _tosa_binary(ts.Op.ADD)
    sub = _tosa_binary(ts.Op.SUB)
    mul = _tosa_binary(ts.Op.MUL)
    intdiv = _tosa_binary(ts.Op.INTDIV)
    pow = _tosa_binary(ts.Op.POW)
    exp = _tosa_unary(ts.Op.EXP)
    log = _tosa_unary(ts.Op.LOG)
    reciprocal = _tosa_unary(ts.Op.RECIPROCAL)
    rsqrt = _tosa_unary(ts.Op.RSQRT)
    floor = _tosa_unary(ts.Op.FLOOR)
    ceil = _tosa_unary(ts.Op.CEIL)
    sigmoid = _tosa_unary(ts.Op.SIGMOID)
    tanh = _tosa_unary(ts.Op.TANH)
    sin = _tosa_unary(ts.Op.SIN)
    cos = _tosa_unary(ts.Op.COS)
    erf = _tosa_unary(ts.Op.ERF)

    def maximum(self, a, b):
        a, b = self._pair(a, b)
        if self._emulates_int32(a):
            return self.select(self.gt(a, b), a, b)
        return self.binary(ts.Op.MAXIMUM, a, b, None, _PROPAGATE)

    def minimum(self, a, b):
        a, b = self._pair(a, b)
        if self._emulates_int32(a):
            return self.select(self.gt(a, b), b, a)
        return self.binary(ts.Op.MINIMUM, a, b, None, _PROPAGATE)

    def _emulates_int32(self, tensor: TosaTensor) -> bool:
        """int32 EQUAL/GREATER/SELECT/MAXIMUM/ABS are PRO-INT only: without it, compose them."""
        return tensor.dtype == ts.DType.INT32 and not self.graph.spec.supports_int()

    def neg(self, x):
        x = self.tensor(x)
        if x.dtype in INT_TOSA:
            # NEGATE on integers is PRO-INT only; 0 - x is the same and legal in both profiles.
            return self.sub(0, x)
        zero = self.graph.const([0], x.dtype, shape=(1,), stem="zp")
        return self.emit(ts.Op.NEGATE, [x, zero, zero], x.shape, x.dtype)

    def abs(self, x):
        x = self.tensor(x)
        if self._emulates_int32(x):
            return self.select(self.gt(0, x), self.neg(x), x)
        return self.unary(ts.Op.ABS, x)

    def clamp(self, x, low: float, high: float):
        """TOSA CLAMP (float or int8): bounds are attributes in the tensor's own data type."""
        x = self.tensor(x)
        np_dtype = numpy_dtype(x.dtype)

        def raw(value):
            return list(np.array([value], dtype=np_dtype).tobytes())

        return self.emit(ts.Op.CLAMP, [x], x.shape, x.dtype, raw(low), raw(high), _PROPAGATE)

    # --- comparisons and logic (results are bool) --------------------------------------------
    eq = _tosa_comparison(ts.Op.EQUAL)
    gt = _tosa_comparison(ts.Op.GREATER)
    ge = _tosa_comparison(ts.Op.GREATER_EQUAL)

    def lt(self, a, b):
        return self.gt(b, a)

    def le(self, a, b):
        return self.ge(b, a)

    def ne(self, a, b):
        return self.logical_not(self.eq(a, b))

    logical_and = _tosa_binary(ts.Op.LOGICAL_AND)
    logical_or = _tosa_binary(ts.Op.LOGICAL_OR)
    logical_xor = _tosa_binary(ts.Op.LOGICAL_XOR)
    logical_not = _tosa_unary(ts.Op.LOGICAL_NOT)

    def select(self, cond, a, b, dtype=None):
        """``a`` where ``cond`` else ``b``; numbers take the other branch's type (or ``dtype``)."""
        cond = self.tensor(cond)
        if dtype is not None:
            a, b = self.tensor(a, dtype), self.tensor(b, dtype)
        else:
            a, b = self._pair(a, b)
        if self._emulates_int32(a):
            return int_math.select_int32(self, cond, a, b)
        return self.emit(ts.Op.SELECT, [cond, a, b], _broadcast(cond.shape, a.shape, b.shape), a.dtype)


def conversion_reason(src: torch.dtype, dst: torch.dtype, spec) -> str | None:
    """Why ``Composer.convert`` cannot turn ``src`` into ``dst`` under ``spec`` (None if it can)."""

    kinds = dtype_kind(src), dtype_kind(dst)
    if None in kinds:
        bad = src if kinds[0] is None else dst
        return f"conversion involving {bad} is not supported"
    if tosa_dtype(src) == tosa_dtype(dst):
        return None
    fp8 = [dtype for dtype in (src, dst) if is_fp8(dtype)]
    if fp8 and not (src.is_floating_point and dst.is_floating_point):
        return f"converting {src} to {dst}: TOSA 1.0 CASTs {fp8[0]} only to and from floats"
    if FLOAT in kinds and not spec.supports_fp():
        return f"converting {src} to {dst} needs the TOSA FP profile"
    if set(kinds) <= {INT, SMALL_INT} and not spec.supports_int():
        return f"converting {src} to {dst} needs the TOSA INT profile (int->int CAST)"
    return None
