"""aten.triu, kept whole (to_edge would build the mask from aranges at run time): SELECT with a constant mask."""

import torch

from etarm.lowering.registry import register
from etarm.lowering.triangle import TriangleVisitor


@register
class TriuVisitor(TriangleVisitor):
    targets = ("aten.triu.default",)
    preserved_ops = (torch.ops.aten.triu.default,)
    keep = torch.triu
