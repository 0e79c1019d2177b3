"""INT-profile building blocks of the ops that add quantized values: mean, sum, cumsum,
average pooling and bilinear resize.

These ops add integers and rescale once: the sum of ``count`` values ``q - zero_point``
is exact in int32 while ``count * magnitude < 2**31`` (an int8 value minus its zero point
is at most 255 in size, an int16 one, whose zero point TOSA fixes at 0, 32768), and a
single RESCALE by ``input scale / (divisor * output scale)`` then rounds once, so the
result is within one output step of torch's float arithmetic.

An int8 average whose output keeps its input's parameters (EthosUQuantizer on U85) is
one AVG_POOL2D instead: its own division rounds once (half up) into the same grid.

The ``*_reason`` checks run at partition time, before FoldQuantizeNodes, when the input
is still a dequantize node holding its parameters. An input reached along a direct edge
(no dequantize) is assumed to be the widest type the target allows.
"""

from __future__ import annotations

import operator

import torch
import tosa_serializer as ts

from etarm.lowering.quantized import input_qparams, output_qparams, rescale
from etarm.op_names import op_name
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.quant_params import is_dequantize, is_quantize, qdq_dtype
from etarm.tosa_ir.specification import TosaSpecification

INT32_LIMIT = 2**31
# Largest |q - zero_point| of each integer type (TOSA allows int16 zero point 0 only).
_MAGNITUDE = {torch.int8: 255, torch.int16: 32768}
# The type TOSA accumulates sums of each input type in (DEPTHWISE_CONV2D, RESIZE BILINEAR).
_ACCUMULATOR = {ts.DType.INT8: ts.DType.INT32, ts.DType.INT16: ts.DType.INT48}


def quantized_input_dtype(node: torch.fx.Node, spec: TosaSpecification) -> torch.dtype:
    """The integer type argument 0 of ``node`` will have once quantized."""
    arg = node.args[0]
    if is_dequantize(arg):
        return qdq_dtype(arg)
    return torch.int16 if spec.has_extension("int16") else torch.int8


def sum_reason(node: torch.fx.Node, spec: TosaSpecification, count: int, what: str) -> str | None:
    """Why adding ``count`` quantized inputs of ``node`` could overflow int32, or None."""
    dtype = quantized_input_dtype(node, spec)
    name = str(dtype).replace("torch.", "")
    magnitude = _MAGNITUDE.get(dtype)
    if magnitude is None:
        return f"input is quantized to {name}; integer sums take int8 or int16"
    if count * magnitude >= INT32_LIMIT:
        return f"{what} adds {count} {name} values, which can overflow the int32 accumulator"
    return None


def _zero_point(qdq: torch.fx.Node) -> int:
    """A per-tensor Q/DQ node's zero point (activations are quantized per tensor)."""
    return int(qdq.args[2]) if op_name(qdq.target).endswith("per_tensor.default") else 0


def int16_zero_point_reason(node: torch.fx.Node) -> str | None:
    """TOSA RESCALE takes a non-zero zero point on int8 tensors only."""
    results = [node] + [u for u in node.users if u.op == "call_function" and u.target is operator.getitem]
    sides = [("input", a) for a in node.args if is_dequantize(a)]
    sides += [("output", u) for r in results for u in r.users if is_quantize(u)]
    for side, qdq in sides:
        if qdq_dtype(qdq) == torch.int16 and _zero_point(qdq) != 0:
            return f"{side} is quantized to int16 with zero point {_zero_point(qdq)}; TOSA rescales int16 with zero point 0 only"
    return None


def accumulator_dtype(dtype) -> ts.DType:
    """int8 inputs accumulate in int32, int16 ones (int16 extension) in int48."""
    return _ACCUMULATOR[dtype]


def centred_int32(graph: TosaGraph, tensor: TosaTensor, zero_point: int) -> TosaTensor:
    """An int8/int16 tensor as int32 ``q - zero_point``, ready to add."""
    return rescale(graph, tensor, 1.0, ts.DType.INT32, input_zp=zero_point)


def int32_accumulator(graph: TosaGraph, tensor: TosaTensor) -> TosaTensor:
    """An int48 accumulator narrowed to int32 (exact: the checks bounded the sums), so the final
    RESCALE can use a 32-bit multiplier (TOSA allows only 16-bit ones on int48 inputs)."""
    if tensor.dtype != ts.DType.INT48:
        return tensor
    return rescale(graph, tensor, 1.0, ts.DType.INT32, scale32=False)


def averages_in_place(node: torch.fx.Node) -> bool:
    """Whether an int8 average's output has its input's parameters (AVG_POOL2D applies)."""
    source = input_qparams(node, 0)
    return source.dtype == torch.int8 and source.same_values(output_qparams(node))


def average_pool(graph: TosaGraph, nhwc: TosaTensor, kernel, stride, out_shape, zero_point: int) -> TosaTensor:
    """AVG_POOL2D of an unpadded int8 NHWC tensor whose result keeps its parameters."""
    zp = graph.const([zero_point], nhwc.dtype, shape=(1,), stem="zp")
    attrs = (list(kernel), list(stride), [0, 0, 0, 0], ts.DType.INT32)
    return graph.emit(ts.Op.AVG_POOL2D, [nhwc, zp, zp], out_shape, nhwc.dtype, *attrs)
