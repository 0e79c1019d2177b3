"""aten.mul: TOSA MUL with a zero shift.

Quantized: an int32 MUL of the operands minus their zero points, rescaled by
``scale_a * scale_b / scale_out`` into the output (operators/quantized.py).
"""

import tosa_serializer as ts

from etarm.lowering.elementwise import binary
from etarm.lowering.quantized import is_quantized, multiply
from etarm.lowering.registry import NodeVisitor, register


@register
class MulVisitor(NodeVisitor):
    targets = ("aten.mul.Tensor", "aten.mul.Scalar")
    handles_qparams = True

    def define(self, node, graph):
        if is_quantized(node):
            multiply(graph, node)
            return
        binary(graph, node, ts.Op.MUL, node.args[0], node.args[1], graph.out(node))
