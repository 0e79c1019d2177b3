"""aten.pixel_shuffle, kept whole: RESHAPE -> one rank-6 TRANSPOSE -> RESHAPE."""

import torch

from etarm.lowering import spatial
from etarm.lowering.registry import NodeVisitor, register


@register
class PixelShuffleVisitor(NodeVisitor):
    targets = ("aten.pixel_shuffle.default",)
    preserved_ops = (torch.ops.aten.pixel_shuffle.default,)

    def check(self, node, spec):
        return spatial.pixel_shuffle_reason(node)

    def define(self, node, graph):
        spatial.shuffle_pixels(graph, node, int(node.args[1]), inverse=False)
