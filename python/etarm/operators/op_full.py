"""aten.full (torch.full, zeros, ones, new_full, ...): a constant."""

from etarm.lowering.constant_ops import ConstantVisitor
from etarm.lowering.registry import register


@register
class FullVisitor(ConstantVisitor):
    targets = ("aten.full.default",)
