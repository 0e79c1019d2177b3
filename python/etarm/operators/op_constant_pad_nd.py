"""aten.constant_pad_nd (F.pad mode='constant'): negative amounts crop with SLICE, positive ones PAD."""

import torch

from etarm.lowering import shapes
from etarm.lowering.dtype_rules import EXTENSION_FLOATS
from etarm.lowering.registry import NodeVisitor, register
from etarm.lowering.tensor_math import argument
from etarm.tosa_ir.quant_params import is_quantized, output_qparams


def axis_padding(pad, rank: int) -> list[tuple[int, int]]:
    """torch's pad list (last axis first, (before, after) pairs) as per-axis pairs in axis order."""
    pairs = [(0, 0)] * rank
    for i in range(len(pad) // 2):
        pairs[rank - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


def pad_value(node):
    value = argument(node, 2, "value", 0)
    return 0 if value is None else value


def stored_pad_value(node):
    """The pad value as the TOSA tensor stores it: quantized with the output's parameters
    when the INT passes made the node integer (0.0 is the zero point, not 0)."""
    value = pad_value(node)
    if is_quantized(node):
        return int(output_qparams(node).quantize(torch.tensor([float(value)]))[0])
    return value


@register
class ConstantPadNdVisitor(NodeVisitor):
    targets = ("aten.constant_pad_nd.default",)
    extension_floats = EXTENSION_FLOATS

    def check(self, node, spec):
        x = shapes.fake(node.args[0])
        pad, value = node.args[1], pad_value(node)
        if len(pad) % 2 or len(pad) // 2 > x.dim():
            return f"pad {list(pad)} does not fit a rank-{x.dim()} input"
        if not all(isinstance(p, int) for p in pad):
            return f"pad {list(pad)} is not constant"
        if not isinstance(value, (int, float, bool)):
            return f"value {value!r} is not a constant number"
        if not x.dtype.is_floating_point and x.dtype != torch.bool:
            if not float(value).is_integer():
                return f"value {value} is not representable in {x.dtype}"
            # int64 tensors are narrowed to int32.
            info = torch.iinfo(torch.int32 if x.dtype == torch.int64 else x.dtype)
            if not info.min <= int(value) <= info.max:
                return f"value {value} is out of the {x.dtype} range TOSA holds"
        return shapes.layout_reason(node, spec, node.args[0])

    def define(self, node, graph):
        x = graph.value(node.args[0])
        value = stored_pad_value(node)
        pairs = axis_padding(node.args[1], x.rank)
        # torch crops by negative amounts first (narrow), then pads by the positive ones.
        for axis, (before, after) in enumerate(pairs):
            crop_before, crop_after = max(-before, 0), max(-after, 0)
            if crop_before or crop_after:
                x = shapes.narrow(graph, x, axis, crop_before, x.shape[axis] - crop_before - crop_after)
        x = shapes.pad(graph, x, [(max(b, 0), max(a, 0)) for b, a in pairs], value)
        graph.bind(node, x)
