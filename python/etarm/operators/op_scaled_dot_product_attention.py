"""aten.scaled_dot_product_attention, kept whole: softmax(q @ k^T * scale + mask) @ v.

Whole, it is two MATMULs, one TRANSPOSE of k, the scale MUL, one mask op (SELECT for a
bool or causal mask, ADD for a float mask) and the softmax, instead of ExecuTorch's
decomposition (which also needs expand/view/where/full_like/any/... lowerings).
Grouped-query attention (enable_gqa) folds each query group into the rows of one MATMUL
against its shared key/value head.
Quantized (INT): lowered whole on integers, int32 scores, the integer softmax and
15/29-bit probabilities into the second MATMUL (integer_attention.py).
"""

import math

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import tensor_math as tm
from etarm.lowering.integer_attention import lower_quantized_attention, quantized_attention_reason
from etarm.lowering.matmul import batched_matmul, operands_reason
from etarm.lowering.quantized import FloatAndQuantizedVisitor
from etarm.lowering.reduction import softmax
from etarm.lowering.registry import register

_MASK_INDEX, _DROPOUT_INDEX, _CAUSAL_INDEX = 3, 4, 5


def _options(node):
    return (
        tm.argument(node, _MASK_INDEX, "attn_mask"),
        tm.argument(node, _DROPOUT_INDEX, "dropout_p", 0.0),
        tm.argument(node, _CAUSAL_INDEX, "is_causal", False),
        node.kwargs.get("scale"),
        node.kwargs.get("enable_gqa", False),
    )


@register
class ScaledDotProductAttentionVisitor(FloatAndQuantizedVisitor):
    targets = ("aten.scaled_dot_product_attention.default",)
    preserved_ops = (torch.ops.aten.scaled_dot_product_attention.default,)

    def float_reason(self, node, spec):
        mask, dropout_p, is_causal, _scale, enable_gqa = _options(node)
        q, k, v = node.args[:3]
        reason = operands_reason(node, [("query", q), ("key", k), ("value", v)], ranks=(2, 3, 4, 5))
        if reason:
            return reason
        if dropout_p != 0:
            return f"dropout_p={dropout_p} (dropout is random; only 0 is lowered)"
        if mask is not None and is_causal:
            return "attn_mask together with is_causal=True"
        if mask is not None:
            value = mask.meta["val"] if isinstance(mask, torch.fx.Node) else None
            if value is None or value.dtype not in (torch.bool, q.meta["val"].dtype):
                return "attn_mask must be a bool tensor or a tensor of the query's dtype"
        q_heads, kv_heads = q.meta["val"].shape[:-2], k.meta["val"].shape[:-2]
        if enable_gqa and q_heads != kv_heads:
            if len(q_heads) < 1 or len(kv_heads) != len(q_heads) or q_heads[:-1] != kv_heads[:-1]:
                return "enable_gqa needs query and key/value that differ only in the head dim (-3)"
            if q_heads[-1] % kv_heads[-1]:
                return f"enable_gqa with {q_heads[-1]} query heads not a multiple of {kv_heads[-1]} key/value heads"
        return None

    def quantized_reason(self, node, spec):
        return quantized_attention_reason(node)

    def define_quantized(self, node, graph):
        lower_quantized_attention(graph, node)

    def define_float(self, node, graph):
        mask, _dropout_p, is_causal, scale, enable_gqa = _options(node)
        q, k, v = (graph.value(arg) for arg in node.args[:3])
        length, depth = q.shape[-2:]
        source_length = k.shape[-2]
        if scale is None:
            scale = 1.0 / math.sqrt(depth)
        q_heads, kv_heads = q.shape[:-2], k.shape[:-2]
        # Without enable_gqa, differing batch/head dims broadcast (batched_matmul) instead.
        grouped = enable_gqa and q_heads != kv_heads
        if grouped:
            # Query head h uses key/value head h // group (torch repeat_interleaves k and v).
            group = q_heads[-1] // kv_heads[-1]
            q = graph.reshape(q, kv_heads + (group * length, depth))

        scores = batched_matmul(graph, tm.widen(graph, q), tm.widen(graph, tm.swap_last_two(graph, k)))
        scores = tm.scale(graph, scores, scale)  # after the product, as torch's CPU kernel scales
        if grouped:
            scores = graph.reshape(scores, q_heads + (length, source_length))

        minus_inf = tm.scalar(graph, -math.inf, scores.dtype, scores.rank)
        if is_causal:
            causal = np.tril(np.ones((length, source_length), dtype=bool))
            scores = tm.select(graph, graph.const(causal, ts.DType.BOOL), scores, minus_inf)
        elif mask is not None:
            mask_tensor = graph.value(mask)
            if mask_tensor.dtype == ts.DType.BOOL:
                scores = tm.select(graph, mask_tensor, scores, minus_inf)
            else:
                scores = tm.add(graph, scores, tm.widen(graph, mask_tensor))
        # A user mask may hide whole rows; torch returns zeros for them, not NaN.
        weights = softmax(graph, scores, scores.rank - 1, zero_masked_rows=mask is not None)

        if grouped:
            weights = graph.reshape(weights, kv_heads + (group * length, source_length))
        result = batched_matmul(graph, weights, tm.widen(graph, v))
        tm.bind_result(graph, node, result)
