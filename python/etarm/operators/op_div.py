"""aten.div: a * RECIPROCAL(b) for floats (TOSA 1.0 has no float DIV), INTDIV for int32.

rounding_mode 'trunc'/'floor' round the float quotient (a / b computed as above, so a
quotient within 1 ulp of an integer may round differently from torch's exact fmod-based
kernel); on int32 'trunc' is INTDIV and 'floor' corrects it (int_math). Integer operands
of a true division are converted to the float result type first, as torch promotes.

Quantized (INT):
- by a positive constant c (a number, or a one-value constant tensor): one RESCALE by
  scale_a / (c * scale_out); by zero or a negative constant, a lookup of x / c.
- by a tensor: INTDIV of the dividend shifted left by P bits (P = 21 for int8, 15 for
  int16, as far as int32 allows) by the divisor, then a RESCALE into the output. The
  truncation costs < 2**-P of the dividend's step, under 1 output step when the output
  range covers |a| / |b|. A divisor that quantizes to 0 divides by 1 instead: the result
  saturates with the sign of a (torch gives +-inf, and NaN for 0 / 0).
- with a rounding_mode: a lookup of torch.div (quantized_lookup.py), of one tensor when
  the divisor is a number, else of two int8 tensors.
"""

import numbers

import torch
import tosa_serializer as ts

from etarm.lowering import float_math, int_math
from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ANY_PROFILE, FLOAT, FP, INT, dtype_reason
from etarm.lowering.elementwise import output_rank
from etarm.lowering.pointwise import integer_division_by_zero_reason, operand_reason
from etarm.lowering.quantized import input_qparams, one_value_constant, rescale, scaled_copy, write_int32_result
from etarm.lowering.quantized_lookup import (
    QuantizedBranch,
    binary_function_lookup,
    function_lookup,
    int8_operands_reason,
)
from etarm.lowering.registry import NodeVisitor, register
from etarm.op_names import op_name

_MODES = (None, "trunc", "floor")
# int32 INTDIV, MUL, SUB and logical shifts are in both TOSA 1.0 profiles.
_RULE = {FLOAT: FP, INT: ANY_PROFILE}
# Bits the quantized dividend is shifted left before INTDIV: |q - zp| < 2**8 (int8) or
# 2**15 (int16) times 2**P stays in int32 (int8: RESCALE's shift limit allows 21).
_DIVIDEND_SHIFT = {torch.int8: 21, torch.int16: 15}


def rounding_mode(node):
    return node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None)


def _divide_by_constant(graph, node, divisor: float) -> None:
    if divisor <= 0:
        value = torch.tensor(divisor, dtype=torch.float32)
        function_lookup(graph, node, lambda x: torch.div(x, value))
    else:
        scaled_copy(graph, node, 0, 1.0 / divisor)


def _divide_by_tensor(graph, node) -> None:
    (dividend_q, divisor_q) = (input_qparams(node, 0), input_qparams(node, 1))
    shift = _DIVIDEND_SHIFT[dividend_q.dtype]
    rank = output_rank(node)
    dividend, divisor = (graph.to_rank(graph.value(arg), rank) for arg in node.args[:2])
    if dividend.dtype == ts.DType.INT8:
        numerator = rescale(graph, dividend, float(2**shift), ts.DType.INT32, input_zp=int(dividend_q.zero_point))
    else:  # int16: zero point 0; RESCALE's shift limit would allow fewer bits than a MUL
        wide = graph.emit(ts.Op.CAST, [dividend], dividend.shape, ts.DType.INT32)
        factor = graph.const([2**shift], ts.DType.INT32, shape=(1,) * rank, stem="shift_factor")
        no_shift = graph.const([0], ts.DType.INT8, stem="shift")
        numerator = graph.emit(ts.Op.MUL, [wide, factor, no_shift], wide.shape, ts.DType.INT32)
    steps = rescale(graph, divisor, 1.0, ts.DType.INT32, input_zp=int(divisor_q.zero_point))
    zero = graph.const([0], ts.DType.INT32, shape=(1,) * rank, stem="zero")
    one = graph.const([1], ts.DType.INT32, shape=(1,) * rank, stem="one")
    is_zero = graph.emit(ts.Op.EQUAL, [steps, zero], steps.shape, ts.DType.BOOL)
    safe_steps = graph.emit(ts.Op.SELECT, [is_zero, one, steps], steps.shape, ts.DType.INT32)
    shape = tuple(max(a, b) for a, b in zip(numerator.shape, safe_steps.shape))
    quotient = graph.emit(ts.Op.INTDIV, [numerator, safe_steps], shape, ts.DType.INT32)
    unit = float(dividend_q.scale) / (float(divisor_q.scale) * 2**shift)
    write_int32_result(graph, node, quotient, unit)


@register
class DivVisitor(QuantizedBranch, NodeVisitor):
    targets = ("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode")

    def parameter_reason(self, node):
        mode = rounding_mode(node)
        if mode not in _MODES:
            return f"{op_name(node.target)}: rounding_mode={mode!r} is not supported"
        return None

    def quantized_reason(self, node, spec):
        reason = super().quantized_reason(node, spec)
        if reason is None and rounding_mode(node) is not None and isinstance(node.args[1], torch.fx.Node):
            return int8_operands_reason(node, f"a division with rounding_mode={rounding_mode(node)!r}")
        return reason

    def unquantized_reason(self, node, spec):
        name = op_name(node.target)
        out = node.meta["val"].dtype
        reason = dtype_reason(name, out, spec, _RULE) or operand_reason(node, spec, node.args[:2], out)
        if reason:
            return reason
        return integer_division_by_zero_reason(node)

    def define_quantized(self, node, graph):
        mode = rounding_mode(node)
        if mode is not None:
            binary_function_lookup(graph, node, lambda a, b: torch.div(a, b, rounding_mode=mode))
            return
        divisor = one_value_constant(graph, node, 1)
        if divisor is not None and tuple(node.meta["val"].shape) == graph.value(node.args[0]).shape:
            _divide_by_constant(graph, node, float(divisor))
        else:
            _divide_by_tensor(graph, node)

    def define_unquantized(self, node, graph):
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
