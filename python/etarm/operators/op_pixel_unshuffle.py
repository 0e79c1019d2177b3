"""aten.pixel_unshuffle, kept whole: RESHAPE -> one rank-6 TRANSPOSE -> RESHAPE."""

import torch

from etarm.lowering.registry import register
from etarm.lowering.spatial import PixelShuffleFamilyVisitor


@register
class PixelUnshuffleVisitor(PixelShuffleFamilyVisitor):
    targets = ("aten.pixel_unshuffle.default",)
    preserved_ops = (torch.ops.aten.pixel_unshuffle.default,)
    inverse = True
