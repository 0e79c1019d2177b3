"""SplitAttention: a quantized scaled_dot_product_attention as its arithmetic before annotation, for Cortex-M.

The quantizer keeps attention whole (its int32 composite is a TOSA lowering's), but Cortex-M has no delegate: the edge
program would decompose it into float arithmetic between its quantized inputs and output. Split first (the queries
scaled by 1/sqrt(d), q @ k^T, softmax, @ v; split_composites.py), each step is quantized like any activation and
becomes a cortex_m op: the scaling a cortex_m.quantized_clamp (QuantizedScalingsAsCortexM), the products
cortex_m.quantized_bmm (k^T read untransposed), the softmax cortex_m.quantized_softmax(_int16). Masked, causal,
dropout and grouped-query attention stay whole (split_composites.py says why)."""

from __future__ import annotations

import torch

from etarm.passes.base import AnnotationPass
from etarm.passes.split_composites import split_attention


class SplitAttention(AnnotationPass):
    """Splits each unmasked attention the quantizer quantizes (int8 or int16 activations) into its arithmetic."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return split_attention(model, lambda node: _quantized(quantizer.config_for(node)))


def _quantized(config) -> bool:
    spec = config.output_activation if config is not None else None
    return spec is not None and spec.dtype in (torch.int8, torch.int16)
