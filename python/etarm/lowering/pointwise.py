"""Base visitors for elementwise ATen ops, so each ``op_<name>.py`` only states its math.

- ``FloatUnaryVisitor``: float result of one tensor (integer inputs converted first, as torch promotes).
- ``BinaryVisitor``: result of two operands (tensor or scalar) converted to the result type, whose
  allowed types are the class's ``rule``; ``FloatBinaryVisitor`` is the float-only one.
- ``ComparisonVisitor``: bool result of comparing two operands in their promoted type.
- ``FloatTestVisitor``: bool result of testing one float tensor (isnan, isinf).
- ``ModuloVisitor``: remainder ``a - round(a / b) * b`` (fmod, remainder), ``round`` set by the subclass;
  quantized (INT), a lookup of torch's op (quantized_lookup.py).
Subclasses implement ``compute(c, ...)`` with a ``Composer`` and may extend ``check``.
"""

from __future__ import annotations

import numbers
from typing import Callable

import torch

from etarm.lowering import float_math
from etarm.lowering.compose import Composer, conversion_reason
from etarm.lowering.dtype_rules import ANY_PROFILE, FLOAT, FLOAT_ONLY, FP, INT, dtype_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.quantized_comparison import quantized_comparison, quantized_predicate
from etarm.lowering.quantized_lookup import (
    QuantizedBranch,
    binary_function_lookup,
    int8_operands_reason,
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
    """Compares in torch's promoted type: float needs PRO-FP, int32 either profile; bool only eq/ne.
    Quantized float operands (INT) compare as integers (quantized_comparison.py)."""

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True
    rule: dict = {}
    function: Callable  # torch's comparison (torch.gt, ...), for quantized operands

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


class ModuloVisitor(QuantizedBranch, BinaryVisitor):
    """Float: ``a - round_quotient(a / b) * b``; int32: ``integer_remainder(a, b)``.

    Quantized (INT): ``function`` (torch's op) looked up: of one tensor when the other
    operand is a number, else of two int8 tensors (a table of every pair, exact).
    """

    # int32 INTDIV, MUL and SUB are in both TOSA 1.0 profiles.
    rule = {FLOAT: FP, INT: ANY_PROFILE}
    function: Callable

    def quantized_reason(self, node, spec):
        reason = super().quantized_reason(node, spec)
        if reason is None and all(isinstance(a, torch.fx.Node) for a in node.args[:2]):
            return int8_operands_reason(node, "a remainder of two tensors")
        return reason

    def define_quantized(self, node, graph):
        binary_function_lookup(graph, node, self.function)

    def check(self, node, spec):
        return integer_division_by_zero_reason(node) or super().check(node, spec)

    def compute(self, c: Composer, a, b):
        if not c.out_meta.dtype.is_floating_point:
            return self.integer_remainder(c, a, b)
        b = c.tensor(b, c.out_dtype)
        return c.sub(a, c.mul(self.round_quotient(c, float_math.divide(c, a, b)), b))

    def round_quotient(self, c: Composer, quotient):
        raise NotImplementedError

    def integer_remainder(self, c: Composer, a, b):
        raise NotImplementedError
