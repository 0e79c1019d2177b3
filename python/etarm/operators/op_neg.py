"""aten.neg: TOSA NEGATE for floats; 0 - x for int32 (legal in both profiles, NEGATE i32 is not).

Quantized (INT): int8 is one TABLE (quantized_lookup.Int8LookupLowering); int16 is NEGATE
on the integers and a RESCALE to the output's scale if it differs.
"""

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ANY_PROFILE, FLOAT, FP, INT, tensor_args_reason
from etarm.lowering.quantized import requantize
from etarm.lowering.quantized_lookup import Int8LookupLowering
from etarm.lowering.registry import NodeVisitor, register


@register
class NegVisitor(Int8LookupLowering, NodeVisitor):
    targets = ("aten.neg.default",)
    function = torch.neg

    def unquantized_reason(self, node, spec):
        return tensor_args_reason(node, spec, {FLOAT: FP, INT: ANY_PROFILE})

    def define_int16(self, graph, node, x, source, target):
        zero = graph.const([0], x.dtype, shape=(1,), stem="zp")
        negated = graph.emit(ts.Op.NEGATE, [x, zero, zero], x.shape, x.dtype)
        if source.same_values(target):
            graph.bind(node, negated)
        else:  # zero points are 0 on int16, so -q keeps the source's parameters
            requantize(graph, negated, source, target, out=graph.out(node))

    def define_unquantized(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.neg(node.args[0]))
