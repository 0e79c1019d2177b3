"""aten.any: REDUCE_ANY over the reduced axes; a float input is first compared with zero.

INT profile: bool inputs only (a float input would be quantized, which any does not take).
"""

import torch
import tosa_serializer as ts

from etarm.lowering import tensor_math as tm
from etarm.lowering.quantized import is_int_spec
from etarm.lowering.reduction import dims_reason, reduce, reduced_axes
from etarm.lowering.registry import NodeVisitor, register
from etarm.op_names import op_name


def _dims(node):
    return None if op_name(node.target) == "aten.any.default" else tm.argument(node, 1, "dim")


@register
class AnyVisitor(NodeVisitor):
    targets = ("aten.any.dim", "aten.any.dims", "aten.any.default")
    profiles = frozenset({"FP", "INT"})

    def check(self, node, spec):
        value = node.args[0].meta["val"]
        if is_int_spec(spec) and value.dtype != torch.bool:
            return f"input dtype {value.dtype} is not supported on the INT profile (bool only)"
        if value.dtype != torch.bool and value.dtype not in tm.FLOAT_DTYPES:
            return f"input dtype {value.dtype} is not supported (only bool/float32/float16)"
        if value.numel() == 0:
            return "input has no elements (TOSA tensors cannot be empty)"
        return dims_reason(_dims(node), value.dim())

    def define(self, node, graph):
        source = graph.value(node.args[0])
        flags = source
        if source.dtype != ts.DType.BOOL:
            # x != 0, NaN included (it is truthy in torch too).
            zero = tm.scalar(graph, 0.0, source.dtype, source.rank)
            flags = tm.unary(graph, ts.Op.LOGICAL_NOT, graph.binary(ts.Op.EQUAL, source, zero))
        axes = reduced_axes(_dims(node), source.rank)
        tm.bind_result(graph, node, reduce(graph, ts.Op.REDUCE_ANY, flags, axes, node.meta["val"].shape))
