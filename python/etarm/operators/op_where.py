"""aten.where.self: TOSA SELECT(condition, a, b) in the result type.

SELECT takes float (PRO-FP), bool (both profiles) and int8/16/32 (PRO-INT) branches;
int32 without the INT profile is composed exactly (int_math). Quantized (INT), both branches
and the result share their parameters (the quantizer's choice), so SELECT moves the integers.
"""

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ALL_KINDS, PRO_INT, SMALL_INT, dtype_reason
from etarm.lowering.pointwise import operand_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register

_RULE = {**ALL_KINDS, SMALL_INT: PRO_INT}


@register
class WhereVisitor(NodeVisitor):
    targets = ("aten.where.self",)
    profiles = frozenset({"FP", "INT"})

    def check(self, node, spec):
        condition, a, b = node.args[:3]
        out = node.meta["val"].dtype
        if is_int_spec(spec) and out.is_floating_point:
            return operand_reason(node, spec, [condition], torch.bool)
        return (
            dtype_reason("aten.where.self", out, spec, _RULE)
            or operand_reason(node, spec, [condition], torch.bool)
            or operand_reason(node, spec, [a, b], out)
        )

    def define(self, node, graph):
        c = Composer(graph, node)
        condition, a, b = node.args[:3]
        if is_quantized(node):
            c.finish(c.select(c.tensor(condition), c.tensor(a), c.tensor(b)))
            return
        c.finish(c.select(c.convert(condition, ts.DType.BOOL), c.convert(a, c.out_dtype), c.convert(b, c.out_dtype)))
