"""aten.linspace, kept whole (to_edge would build it from arange and a dozen ops): a constant
computed by torch itself, so it matches torch's rounding exactly."""

import torch

from etarm.lowering.constant_ops import ConstantVisitor
from etarm.lowering.registry import register


@register
class LinspaceVisitor(ConstantVisitor):
    targets = ("aten.linspace.default",)
    preserved_ops = (torch.ops.aten.linspace.default,)
