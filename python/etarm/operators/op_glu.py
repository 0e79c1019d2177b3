"""aten.glu, kept whole: a * SIGMOID(b) for the two halves a, b of x along dim (two SLICEs)."""

import torch
import tosa_serializer as ts

from etarm.operators.compose import Composer
from etarm.operators.pointwise import FloatUnaryVisitor
from etarm.operators.registry import register


def _dim(node) -> int:
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", -1)
    return dim % len(node.args[0].meta["val"].shape)


@register
class GluVisitor(FloatUnaryVisitor):
    targets = ("aten.glu.default",)
    preserved_ops = (torch.ops.aten.glu.default,)

    def check(self, node, spec):
        shape = node.args[0].meta["val"].shape
        if len(shape) == 0 or shape[_dim(node)] % 2:
            return "aten.glu.default: the split dimension must have an even size"
        return super().check(node, spec)

    def compute(self, c: Composer, x):
        dim = _dim(c.node)
        half = list(x.shape)
        half[dim] //= 2
        halves = []
        for start in (0, half[dim]):
            begin = [0] * x.rank
            begin[dim] = start
            inputs = [x, c.graph.shape_const(begin), c.graph.shape_const(half)]
            halves.append(c.emit(ts.Op.SLICE, inputs, half, x.dtype))
        return c.mul(halves[0], c.sigmoid(halves[1]))
