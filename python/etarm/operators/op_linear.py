"""aten.linear, kept whole: input @ weight.T + bias as ONE MATMUL on the flattened rows.

Kept whole instead of ExecuTorch's view/permute/addmm/view: the weight transpose folds
into the constant at compile time and no reshapes of the input are needed around it.

Quantized (INT): a 1x1 CONV2D over the rows ([1, rows, 1, K] NHWC; the [O, K] weight is
already OHWI) takes the int8 weight against an int8 or int16 input (MATMUL needs equal
types), folds the bias into its int32/int48 accumulator, and one per-channel RESCALE
writes the output.
"""

import math

import torch
import tosa_serializer as ts

from etarm.lowering import quantized_products as qp
from etarm.lowering import tensor_math as tm
from etarm.lowering.matmul import batched_matmul, operands_reason
from etarm.lowering.quantized import FloatAndQuantizedVisitor
from etarm.lowering.registry import register


@register
class LinearVisitor(FloatAndQuantizedVisitor):
    targets = ("aten.linear.default",)
    preserved_ops = (torch.ops.aten.linear.default,)

    def float_reason(self, node, spec):
        bias = tm.argument(node, 2, "bias")
        operands = [("input", node.args[0]), ("weight", node.args[1])] + ([("bias", bias)] if bias is not None else [])
        reason = (
            operands_reason(node, operands[1:2], ranks=(2,))
            or (bias is not None and operands_reason(node, operands[2:], ranks=(1,)))
            or operands_reason(node, operands)
        )
        return reason or None

    def quantized_reason(self, node, spec):
        bias = tm.argument(node, 2, "bias")
        return (
            qp.operand_reason(node.args[0], "input", (torch.int8, torch.int16))
            or qp.operand_reason(node.args[1], "weight", (torch.int8,), symmetric=True, channel_axis=0)
            or (bias is not None and qp.operand_reason(bias, "bias", (torch.int32,), constant=True, channel_axis=0))
            or None
        )

    def define_float(self, node, graph):
        x = graph.value(node.args[0])
        weight_t = tm.swap_last_two(graph, graph.value(node.args[1]))  # [K, O]
        rows = graph.to_rank(x, 2) if x.rank == 1 else x
        result = batched_matmul(graph, rows, weight_t)
        bias = tm.argument(node, 2, "bias")
        if bias is not None:
            result = tm.add(graph, result, graph.value(bias))
        tm.bind_result(graph, node, result)

    def define_quantized(self, node, graph):
        x, weight = graph.value(node.args[0]), graph.value(node.args[1])
        out_features, inner = weight.shape
        rows = math.prod(x.shape[:-1])
        acc = qp.accumulation(node, 0, 1)
        bias = qp.bias(graph, node, 2, acc, out_features)
        nhwc = graph.reshape(x, (1, rows, 1, inner))
        ohwi = graph.reshape(weight, (out_features, 1, 1, inner))
        attrs = ([0, 0, 0, 0], [1, 1], [1, 1], False, acc.dtype)
        inputs = [nhwc, ohwi, bias, *acc.zero_points(graph, nhwc.dtype, ohwi.dtype)]
        product = graph.emit(ts.Op.CONV2D, inputs, (1, rows, 1, out_features), acc.dtype, *attrs)
        qp.write_node_output(graph, node, product, acc)
