"""aten.glu, kept whole: a * SIGMOID(b) for the two halves a, b of x along dim (two SLICEs).

Quantized (INT): the halves are sliced as integers; sigmoid(b) becomes int32 with 22
fractional bits (int8: three int8 TABLEs of its digits, exact to 2**-23; int16: the interpolated
TABLE, within ~2**-14), multiplies the centred a, and one RESCALE writes the output.
"""

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer
from etarm.lowering.pointwise import FloatUnaryVisitor
from etarm.lowering.quantized import input_qparams, int16_table_values, rescale, write_int32_result
from etarm.lowering.quantized_lookup import LookupLowering, int32_lookup
from etarm.lowering.registry import register
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.quant_params import QuantParams

# sigmoid(b) as int32 in steps of 2**-22: times an int8 |a - zp| < 2**9 it stays in int32.
_SIGMOID_BITS = 22
# int16: TABLE entries in steps of 2**-15, 7 more fractional bits from the interpolation.
_TABLE_BITS = 15


def _dim(node) -> int:
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", -1)
    return dim % len(node.args[0].meta["val"].shape)


def _halves(graph: TosaGraph, x: TosaTensor, dim: int) -> list[TosaTensor]:
    half = list(x.shape)
    half[dim] //= 2
    halves = []
    for start in (0, half[dim]):
        begin = [0] * x.rank
        begin[dim] = start
        inputs = [x, graph.shape_const(begin), graph.shape_const(half)]
        halves.append(graph.emit(ts.Op.SLICE, inputs, half, x.dtype))
    return halves


@register
class GluVisitor(LookupLowering, FloatUnaryVisitor):
    targets = ("aten.glu.default",)
    preserved_ops = (torch.ops.aten.glu.default,)

    def parameter_reason(self, node):
        shape = node.args[0].meta["val"].shape
        if len(shape) == 0 or shape[_dim(node)] % 2:
            return "aten.glu.default: the split dimension must have an even size"
        return None

    def define_quantized(self, node, graph):
        source = input_qparams(node, 0)
        a, b = _halves(graph, graph.value(node.args[0]), _dim(node))
        no_shift = graph.const([0], ts.DType.INT8, stem="shift")
        if source.dtype == torch.int8:
            gate = int32_lookup(graph, b, source, torch.sigmoid, 2.0**-_SIGMOID_BITS)
            centred = rescale(graph, a, 1.0, ts.DType.INT32, input_zp=int(source.zero_point))
            shift, unit_bits = no_shift, _SIGMOID_BITS
        else:
            steps = QuantParams(2.0**-_TABLE_BITS, 0, -32768, 32767, torch.int16)
            table = graph.const(int16_table_values(torch.sigmoid, source, steps), ts.DType.INT16, stem="table")
            gate = graph.emit(ts.Op.TABLE, [b, table], b.shape, ts.DType.INT32)  # steps of 2**-22
            centred = graph.emit(ts.Op.CAST, [a], a.shape, ts.DType.INT32)
            # |a| < 2**15 times the gate (< 2**22) needs 37 bits: MUL shifts 7 of them out.
            shift = graph.const([_SIGMOID_BITS - _TABLE_BITS], ts.DType.INT8, stem="shift")
            unit_bits = _TABLE_BITS
        product = graph.emit(ts.Op.MUL, [centred, gate, shift], a.shape, ts.DType.INT32)
        write_int32_result(graph, node, product, float(source.scale) * 2.0**-unit_bits)

    def compute(self, c: Composer, x):
        a, b = _halves(c.graph, x, _dim(c.node))
        return c.mul(a, c.sigmoid(b))
