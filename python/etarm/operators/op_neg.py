"""aten.neg: TOSA NEGATE for floats; 0 - x for int32 (legal in both profiles, NEGATE i32 is not).

Quantized (INT): int8 is one TABLE (exact); int16, which TOSA's TABLE would only
interpolate, is NEGATE on the integers and a RESCALE to the output's scale if it differs.
"""

import torch
import tosa_serializer as ts

from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import ANY_PROFILE, FLOAT, FP, INT, tensor_args_reason
from etarm.lowering.quantized import input_qparams, output_qparams, requantize
from etarm.lowering.quantized_lookup import QuantizedBranch, function_lookup
from etarm.lowering.registry import NodeVisitor, register


@register
class NegVisitor(QuantizedBranch, NodeVisitor):
    targets = ("aten.neg.default",)

    def unquantized_reason(self, node, spec):
        return tensor_args_reason(node, spec, {FLOAT: FP, INT: ANY_PROFILE})

    def define_quantized(self, node, graph):
        source, target = input_qparams(node, 0), output_qparams(node)
        if source.dtype == torch.int8:
            function_lookup(graph, node, torch.neg)
            return
        x = graph.value(node.args[0])
        zero = graph.const([0], x.dtype, shape=(1,), stem="zp")
        negated = graph.emit(ts.Op.NEGATE, [x, zero, zero], x.shape, x.dtype)
        if source.same_values(target):
            graph.bind(node, negated)
        else:  # zero points are 0 on int16, so -q keeps the source's parameters
            requantize(graph, negated, source, target, out=graph.out(node))

    def define_unquantized(self, node, graph):
        c = Composer(graph, node)
        c.finish(c.neg(node.args[0]))
