"""Runs one before-annotation rewrite, or an Ethos-U family's whole before-annotation list, on an exported model."""

from __future__ import annotations

from typing import Callable

import torch

from etarm.ethosu.pipeline import before_annotation


def rewritten(rewrite: Callable, module: torch.nn.Module, inputs: tuple, quantizer=None, family: str = "u55"):
    """(rewrites made, the call targets after them, the model): by ``rewrite(model, wants)`` on every node, or
    with ``quantizer`` by ``family``'s before-annotation passes, which ask the quantizer which nodes apply."""
    model = torch.export.export(module, inputs, strict=False).module()
    if quantizer is None:
        count = rewrite(model, lambda node: True)
    else:
        count = sum(p.run(model, quantizer) for p in before_annotation(family))
    return count, [str(n.target) for n in model.graph.nodes if n.op == "call_function"], model
