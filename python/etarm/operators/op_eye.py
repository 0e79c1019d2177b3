"""aten.eye, kept whole (to_edge would build it from two aranges and a comparison): a constant."""

import torch

from etarm.lowering.constant_ops import ConstantVisitor
from etarm.lowering.registry import register


@register
class EyeVisitor(ConstantVisitor):
    targets = ("aten.eye.default", "aten.eye.m")
    preserved_ops = (torch.ops.aten.eye.default, torch.ops.aten.eye.m)
