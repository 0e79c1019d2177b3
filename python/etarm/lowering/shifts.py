"""Base visitors for integer shifts (<<, >>, bitwise_left_shift, bitwise_right_shift).

Left: LOGICAL_LEFT_SHIFT (both TOSA 1.0 profiles). Right (arithmetic, as torch on signed
integers): ARITHMETIC_RIGHT_SHIFT with the INT profile; without it a constant shift of an
int32 is a floor division by 2^s (int_math), legal in the FP profile. TOSA shifts need
0 <= s < bits: constant amounts outside that are rejected; tensor amounts must respect it.
"""

from __future__ import annotations

import numbers

import torch
import tosa_serializer as ts

from etarm.lowering import int_math
from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ANY_PROFILE, INT, SMALL_INT, dtype_reason
from etarm.lowering.pointwise import promoted_dtype
from etarm.lowering.registry import NodeVisitor
from etarm.op_names import op_name
from etarm.tosa_ir.mapping import tosa_dtype

_BITS = {torch.int8: 8, torch.int16: 16, torch.int32: 32, torch.int64: 32}


class ShiftVisitor(NodeVisitor):
    profiles = frozenset({"FP", "INT"})
    extension_floats = frozenset()  # integers (and bools) only: torch has no float form either
    rule: dict = {INT: ANY_PROFILE, SMALL_INT: ANY_PROFILE}

    def check(self, node, spec):
        name = op_name(node.target)
        dtype = promoted_dtype(*node.args[:2])
        reason = dtype_reason(name, dtype, spec, self.rule)
        if reason:
            return reason
        amount = node.args[1]
        if isinstance(amount, numbers.Number) and not 0 <= amount < _BITS[dtype]:
            return f"{name}: shift amount {amount} is outside [0, {_BITS[dtype] - 1}] for {dtype}"
        return None

    def operands(self, c: Composer, node):
        dtype = tosa_dtype(promoted_dtype(*node.args[:2]))
        return [c.tensor(a, dtype) if isinstance(a, numbers.Number) else c.convert(a, dtype) for a in node.args[:2]]


class LeftShiftVisitor(ShiftVisitor):
    def define(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.binary(ts.Op.LOGICAL_LEFT_SHIFT, *self.operands(c, node)))


class RightShiftVisitor(ShiftVisitor):
    def check(self, node, spec):
        reason = super().check(node, spec)
        if reason or spec.supports_int():
            return reason
        dtype = promoted_dtype(*node.args[:2])
        if not isinstance(node.args[1], numbers.Number) or _BITS[dtype] != 32:
            return (
                f"{op_name(node.target)}: without the TOSA INT profile (ARITHMETIC_RIGHT_SHIFT) only "
                "int32 shifted by a constant is supported"
            )
        return None

    def define(self, node, graph):
        c = Composer(graph, node)
        amount = node.args[1]
        x, shift = self.operands(c, node)
        if graph.spec.supports_int():
            return c.finish(c.binary(ts.Op.ARITHMETIC_RIGHT_SHIFT, x, shift, None, False))
        if amount == 31:
            # floor(x / 2^31) is -1 for negative x, else 0: minus the sign bit.
            return c.finish(c.sub(0, c.binary(ts.Op.LOGICAL_RIGHT_SHIFT, x, shift)))
        c.finish(int_math.floor_division(c, x, 1 << int(amount)))


