"""The name etarm uses for an fx node's operator, in reports and rule tables."""

from __future__ import annotations

import torch


def op_name(target) -> str:
    """'aten.add.Tensor' for ATen and edge operators alike."""
    if isinstance(target, torch._ops.OpOverload):
        # An ATen OpOverload's __name__ lacks the namespace ('add.Tensor'); partitioning
        # sees these before edge lowering, when deciding which ops to keep whole.
        return str(target)
    return getattr(target, "__name__", str(target))
