"""Base visitors for logical_* (any input type, read as != 0) and bitwise_* ops.

Bool logic is LOGICAL_* in both TOSA 1.0 profiles; bitwise ops on integers are BITWISE_*,
which TOSA 1.0 puts in the INT profile only.
"""

from __future__ import annotations

import numbers

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer, conversion_reason
from etarm.lowering.dtype_rules import ANY_PROFILE, BOOL, INT, PRO_INT, SMALL_INT, dtype_reason
from etarm.lowering.pointwise import promoted_dtype
from etarm.lowering.registry import NodeVisitor
from etarm.op_names import op_name
from etarm.tosa_ir.mapping import tosa_dtype

BITWISE_RULE = {BOOL: ANY_PROFILE, INT: PRO_INT, SMALL_INT: PRO_INT}


def _tensor_args(node):
    return [a for a in node.args if isinstance(a, torch.fx.Node)]


class LogicalVisitor(NodeVisitor):
    """logical_and/or/xor/not: operands of any type are true where non-zero."""

    profiles = frozenset({"FP", "INT"})
    bool_op = None  # the TOSA op on bool operands

    def check(self, node, spec):
        if node.meta["val"].dtype != torch.bool:
            return f"{op_name(node.target)}: only a bool result is supported"
        for arg in _tensor_args(node):
            reason = conversion_reason(arg.meta["val"].dtype, torch.bool, spec)
            if reason:
                return f"{op_name(node.target)}: {reason}"
        return None

    def define(self, node, graph):
        c = Composer(graph, node)
        operands = [c.convert(arg, ts.DType.BOOL) for arg in _tensor_args(node)]
        if len(operands) == 1:
            return c.finish(c.unary(self.bool_op, operands[0]))
        c.finish(c.binary(self.bool_op, *operands))


class BitwiseVisitor(NodeVisitor):
    """bitwise_and/or/xor/not: LOGICAL_* on bools, BITWISE_* on integers (INT profile)."""

    profiles = frozenset({"FP", "INT"})
    extension_floats = frozenset()  # integers (and bools) only: torch has no float form either
    bool_op = None
    int_op = None

    def compute_dtype(self, node) -> torch.dtype:
        if len(node.args) == 1:
            return node.args[0].meta["val"].dtype
        return promoted_dtype(*node.args[:2])

    def check(self, node, spec):
        dtype = self.compute_dtype(node)
        return dtype_reason(op_name(node.target), dtype, spec, BITWISE_RULE)

    def define(self, node, graph):
        c = Composer(graph, node)
        dtype = tosa_dtype(self.compute_dtype(node))
        op = self.bool_op if dtype == ts.DType.BOOL else self.int_op
        operands = [
            c.tensor(arg, dtype) if isinstance(arg, numbers.Number) else c.convert(arg, dtype) for arg in node.args[:2]
        ]
        if len(operands) == 1:
            return c.finish(c.unary(op, operands[0]))
        c.finish(c.binary(op, *operands))
