"""aten.div: a * RECIPROCAL(b) for floats (TOSA 1.0 has no float DIV), INTDIV for int32.

rounding_mode 'trunc'/'floor' round the float quotient (a / b computed as above, so a
quotient within 1 ulp of an integer may round differently from torch's exact fmod-based
kernel); on int32 'trunc' is INTDIV and 'floor' corrects it (int_math). Integer operands
of a true division are converted to the float result type first, as torch promotes.
"""

import numbers

from etarm.operators import float_math, int_math
from etarm.operators.compose import Composer
from etarm.operators.dtype_rules import ANY_PROFILE, FLOAT, FP, INT, dtype_reason
from etarm.operators.pointwise import integer_division_by_zero_reason, operand_reason
from etarm.operators.registry import NodeVisitor, op_name, register

_MODES = (None, "trunc", "floor")
# int32 INTDIV, MUL, SUB and logical shifts are in both TOSA 1.0 profiles.
_RULE = {FLOAT: FP, INT: ANY_PROFILE}


def rounding_mode(node):
    return node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None)


@register
class DivVisitor(NodeVisitor):
    targets = ("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode")
    profiles = frozenset({"FP"})

    def check(self, node, spec):
        name = op_name(node.target)
        mode = rounding_mode(node)
        if mode not in _MODES:
            return f"{name}: rounding_mode={mode!r} is not supported"
        out = node.meta["val"].dtype
        reason = dtype_reason(name, out, spec, _RULE) or operand_reason(node, spec, node.args[:2], out)
        if reason:
            return reason
        return integer_division_by_zero_reason(node)

    def define(self, node, graph):
        c = Composer(graph, node)
        a = c.convert(node.args[0], c.out_dtype)
        b = node.args[1]
        integer = not c.out_meta.dtype.is_floating_point
        if not isinstance(b, numbers.Number):
            b = c.convert(b, c.out_dtype)
        elif integer:
            b = c.tensor(b, c.out_dtype)
        mode = rounding_mode(node)
        if integer:
            if mode == "floor":
                return c.finish(int_math.floor_division(c, a, b))
            return c.finish(c.intdiv(a, b))
        quotient = float_math.divide(c, a, b)
        if mode == "trunc":
            quotient = c.trunc(quotient)
        elif mode == "floor":
            quotient = c.floor(quotient)
        c.finish(quotient)
