"""aten.abs: TOSA ABS (int32 without the INT profile: SELECT(x < 0, -x, x), composed in int_math).

Quantized (INT): int8 is one TABLE (quantized_lookup.Int8LookupLowering); int16 is ABS on
the widened integers and one RESCALE to the output's scale.
"""

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import FLOAT_OR_INT, tensor_args_reason
from etarm.lowering.quantized import rescale
from etarm.lowering.quantized_lookup import Int8LookupLowering
from etarm.lowering.registry import NodeVisitor, register
from etarm.tosa_ir.mapping import tosa_dtype


@register
class AbsVisitor(Int8LookupLowering, NodeVisitor):
    targets = ("aten.abs.default",)
    function = torch.abs

    def unquantized_reason(self, node, spec):
        return tensor_args_reason(node, spec, FLOAT_OR_INT)

    def define_int16(self, graph, node, x, source, target):
        wide = graph.emit(ts.Op.CAST, [x], x.shape, ts.DType.INT32)
        magnitude = graph.emit(ts.Op.ABS, [wide], x.shape, ts.DType.INT32)
        rescale(
            graph, magnitude, float(source.scale) / float(target.scale), tosa_dtype(target.dtype),
            output_zp=int(target.zero_point), out=graph.out(node),
        )

    def define_unquantized(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.abs(node.args[0]))
