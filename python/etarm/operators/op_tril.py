"""aten.tril, kept whole (to_edge would build the mask from aranges at run time): SELECT with a constant mask."""

import torch

from etarm.lowering.registry import register
from etarm.lowering.triangle import TriangleVisitor


@register
class TrilVisitor(TriangleVisitor):
    targets = ("aten.tril.default",)
    preserved_ops = (torch.ops.aten.tril.default,)
    keep = torch.tril
