"""Base visitors for elementwise ATen ops, so each ``op_<name>.py`` only states its math.

- ``FloatUnaryVisitor``: float result of one tensor (integer inputs converted first, as torch promotes);
  ``FloatFunctionVisitor`` is one whose quantized (INT) lowering is a lookup of the op itself.
- ``BinaryVisitor``: result of two operands (tensor or scalar) converted to the result type, whose
  allowed types are the class's ``rule``; ``FloatBinaryVisitor`` is the float-only one.
- ``ComparisonVisitor``: bool result of comparing two operands in their promoted type.
- ``FloatTestVisitor``: bool result of testing one float tensor (isnan, isinf).
- ``ModuloVisitor``: remainder ``a - round(a / b) * b`` (fmod, remainder), the rounding set by the subclass;
  quantized (INT), a lookup of torch's op (quantized_lookup.py).
- ``ElementwiseExtremumVisitor``: maximum or minimum of two operands.
Subclasses implement ``compute(c, ...)`` with a ``Composer`` and may extend ``check``.
"""

from __future__ import annotations

import numbers
from typing import Callable, ClassVar

import torch
import tosa_serializer as ts

from etarm.lowering import float_math, int_math
from etarm.lowering.compose import Composer, conversion_reason
from etarm.lowering.dtype_rules import ANY_PROFILE, FLOAT, FLOAT_ONLY, FLOAT_OR_INT, FP, INT, dtype_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.quantized_comparison import quantized_comparison, quantized_predicate
from etarm.lowering.quantized_extrema import quantized_extremum
from etarm.lowering.quantized_lookup import (
    LookupLowering,
    PairLookupLowering,
    QuantizedBranch,
    is_float_node,
    unquantized_operand_reason,
)
from etarm.lowering.registry import NodeVisitor
from etarm.op_names import op_name
from etarm.tosa_ir.mapping import tosa_dtype


def meta_dtype(arg) -> torch.dtype | None:
    if isinstance(arg, torch.fx.Node):
        val = arg.meta.get("val")
        return val.dtype if isinstance(val, torch.Tensor) else None
    return None


def promoted_dtype(a, b) -> torch.dtype:
    """torch's result type of an op on ``a`` and ``b`` (fx nodes or Python numbers)."""

    def probe(arg):
        if isinstance(arg, torch.fx.Node):
            val = arg.meta["val"]
            return torch.empty(tuple(val.shape), dtype=val.dtype, device="meta")
        return arg

    return torch.result_type(probe(a), probe(b))


def operand_reason(node: torch.fx.Node, spec, args, compute_dtype: torch.dtype) -> str | None:
    """Checks that every tensor operand in ``args`` converts to ``compute_dtype``."""
    for arg in args:
        dtype = meta_dtype(arg)
        if isinstance(arg, torch.fx.Node) and dtype is None:
            return f"{op_name(node.target)}: operand {arg.name} is not a tensor"
        if dtype is not None:
            reason = conversion_reason(dtype, compute_dtype, spec)
            if reason:
                return f"{op_name(node.target)}: {reason}"
        elif not isinstance(arg, numbers.Number):
            return f"{op_name(node.target)}: unsupported operand {arg!r}"
    return None


def integer_division_by_zero_reason(node: torch.fx.Node) -> str | None:
    """Rejects an integer result divided by the constant 0 (torch raises, INTDIV is undefined)."""
    divisor = node.args[1]
    if not node.meta["val"].dtype.is_floating_point and isinstance(divisor, numbers.Number) and divisor == 0:
        return f"{op_name(node.target)}: integer division by zero"
    return None


class FloatUnaryVisitor(NodeVisitor):
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        out = node.meta["val"].dtype
        return dtype_reason(op_name(node.target), out, spec, FLOAT_ONLY) or operand_reason(
            node, spec, node.args[:1], out
        )

    def define(self, node, graph):
        c = Composer(graph, node)
        c.finish(self.compute(c, c.convert(node.args[0], c.out_dtype)))

    def compute(self, c: Composer, x):
        raise NotImplementedError


class FloatFunctionVisitor(LookupLowering, FloatUnaryVisitor):
    """``aten.<aten_name>.default``, a float function of one tensor; quantized (INT), a lookup
    table of that ATen op (quantized_lookup.py). A subclass names the op and its ``compute``."""

    aten_name: ClassVar[str]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.targets = (f"aten.{cls.aten_name}.default",)
        cls.function = getattr(torch.ops.aten, cls.aten_name).default


class BinaryVisitor(NodeVisitor):
    """Computes in the result type; ``rule`` says which result types (and profiles) are lowered."""

    profiles = frozenset({"FP"})
    rule: dict = FLOAT_ONLY

    def check(self, node, spec):
        out = node.meta["val"].dtype
        return dtype_reason(op_name(node.target), out, spec, self.rule) or operand_reason(
            node, spec, node.args[:2], out
        )

    def define(self, node, graph):
        c = Composer(graph, node)
        a, b = (self.operand(c, arg) for arg in node.args[:2])
        c.finish(self.compute(c, a, b))

    @staticmethod
    def operand(c: Composer, arg):
        """Tensors are converted to the result type; numbers stay numbers (folded by compute)."""
        return arg if isinstance(arg, numbers.Number) else c.convert(arg, c.out_dtype)

    def compute(self, c: Composer, a, b):
        raise NotImplementedError


class FloatBinaryVisitor(BinaryVisitor):
    rule = FLOAT_ONLY


class ComparisonVisitor(NodeVisitor):
    """Compares in torch's promoted type: float needs PRO-FP, int32 either profile (composed
    exactly without the INT profile, int_math); bools only in eq/ne, whose ``rule`` says so.
    Quantized float operands (INT) compare as integers (quantized_comparison.py).

    A subclass names the op (``aten_name``, e.g. "gt"): its Tensor and Scalar overloads are
    the targets, and torch's function of that name compares quantized operands.
    """

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True
    rule: dict = FLOAT_OR_INT
    aten_name: ClassVar[str]
    function: Callable

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.targets = (f"aten.{cls.aten_name}.Tensor", f"aten.{cls.aten_name}.Scalar")
        cls.function = getattr(torch, cls.aten_name)

    def check(self, node, spec):
        if is_int_spec(spec) and any(is_float_node(arg) for arg in node.args[:2]):
            return unquantized_operand_reason(node, node.args[:2])
        compute = promoted_dtype(*node.args[:2])
        name = op_name(node.target)
        return dtype_reason(name, compute, spec, self.rule) or operand_reason(node, spec, node.args[:2], compute)

    def define(self, node, graph):
        if is_quantized(node):
            quantized_comparison(graph, node, self.compute, self.function)
            return
        c = Composer(graph, node)
        dtype = tosa_dtype(promoted_dtype(*node.args[:2]))
        a, b = (c.tensor(arg, dtype) if isinstance(arg, numbers.Number) else c.convert(arg, dtype) for arg in node.args[:2])
        c.finish(self.compute(c, a, b))

    def compute(self, c: Composer, a, b):
        raise NotImplementedError


class FloatTestVisitor(NodeVisitor):
    """A bool test of a float tensor (FP: ``compute(c, x)``). Quantized (INT), the test of
    every integer's real value decides the result (quantized_comparison.py)."""

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True
    function: Callable  # torch's test (torch.isnan, ...)

    def check(self, node, spec):
        x = node.args[0]
        if is_int_spec(spec):
            return unquantized_operand_reason(node, [x])
        return dtype_reason(op_name(node.target), x.meta["val"].dtype, spec, FLOAT_ONLY)

    def define(self, node, graph):
        if is_quantized(node):
            quantized_predicate(graph, node, self.function)
            return
        c = Composer(graph, node)
        c.finish(self.compute(c, c.tensor(node.args[0])))

    def compute(self, c: Composer, x):
        raise NotImplementedError


class ModuloVisitor(PairLookupLowering, BinaryVisitor):
    """aten.fmod / aten.remainder: float ``a - round(a / b) * b``, int32 INTDIV's remainder; the
    quotient rounds toward zero (fmod: the result takes the dividend's sign) or, where ``floors``,
    down (remainder: the divisor's sign). Quantized (INT): a lookup of ``function`` (torch's op).
    """

    # int32 INTDIV, MUL and SUB are in both TOSA 1.0 profiles.
    rule = {FLOAT: FP, INT: ANY_PROFILE}
    pair_description = "a remainder of two tensors"
    floors: bool

    def check(self, node, spec):
        return integer_division_by_zero_reason(node) or super().check(node, spec)

    def compute(self, c: Composer, a, b):
        if not c.out_meta.dtype.is_floating_point:
            return int_math.floor_remainder(c, a, b) if self.floors else int_math.truncated_division(c, a, b)[1]
        b = c.tensor(b, c.out_dtype)
        quotient = float_math.divide(c, a, b)
        return c.sub(a, c.mul(c.floor(quotient) if self.floors else c.trunc(quotient), b))


class ElementwiseExtremumVisitor(QuantizedBranch, BinaryVisitor):
    """aten.maximum / aten.minimum (``largest`` picks which): TOSA MAXIMUM/MINIMUM (NaN propagates,
    as in torch); int32 without the INT profile is composed exactly (int_math). Quantized (INT):
    the same op on the widened integers (quantized_extrema.py)."""

    rule = FLOAT_OR_INT
    largest: bool

    def define_quantized(self, node, graph):
        quantized_extremum(graph, node, ts.Op.MAXIMUM if self.largest else ts.Op.MINIMUM)

    def compute(self, c: Composer, a, b):
        return c.maximum(a, b) if self.largest else c.minimum(a, b)
