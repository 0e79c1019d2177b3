"""aten.pixel_shuffle, kept whole: RESHAPE -> one rank-6 TRANSPOSE -> RESHAPE."""

import torch

from etarm.lowering.registry import register
from etarm.lowering.spatial import PixelShuffleFamilyVisitor


@register
class PixelShuffleVisitor(PixelShuffleFamilyVisitor):
    targets = ("aten.pixel_shuffle.default",)
    preserved_ops = (torch.ops.aten.pixel_shuffle.default,)
    inverse = False
