"""scaled_dot_product_attention, lowered whole.

FP: two MATMULs and a softmax; masks (bool and float, broadcast), causal, grouped-query.

INT (lowering/integer_attention.py): compared with the convert_pt2e'd model in eager, i.e.
quantize(sdpa(dequantize(q, k, v))) computed in float. Bound: 1 LSB. The scores stay int32
MATMUL accumulators, the softmax is the int32 one of integer_softmax.py (int8: exps of
distances on a grid of 2**-16 of their span, 2**-12.5 relative, moving the output by
< 0.1 LSB), and the probabilities reach the second MATMUL as two integer halves of a Q15
(int8) or Q29 (int16) value, so their truncation costs < S * 2**-16 of max|v| (0.03 LSB
for 16 keys); the final RESCALE rounds once (0.5 LSB), as the reference does (another 0.5
at most). int8 partitions are also compiled by Vela for Ethos-U55 and U85; int16 ones
(int16 x int16 MATMUL) for U85 only, the NPU that has that MATMUL.

The split for Ethos-U55: tests/passes/test_split_composites.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "scaled_dot_product_attention" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.lowering.registry import rejection_reason
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, INT16, attention, check_attention, qkv
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_graphs import compile_pte_partition_with_vela
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.tosa_ir.specification import TosaSpecification


def sdpa(**options):
    return Fn(lambda q, k, v, *mask: F.scaled_dot_product_attention(q, k, v, *mask, **options))


# --- FP ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q_shape,kv_length,value_depth,options",
    [
        ((1, 2, 3, 4), 5, 6, {}),
        ((2, 3, 8), 3, 8, {}),
        ((2, 1, 2, 5, 4), 7, 3, {"scale": 0.3}),
        ((1, 2, 3, 4), 5, 6, {"is_causal": True}),  # L < S: top-left aligned
        ((1, 2, 6, 4), 3, 4, {"is_causal": True}),  # L > S
        ((2, 6, 3, 4), 3, 4, {"enable_gqa": True, "kv_heads": 2, "is_causal": True}),
    ],
    ids=str,
)
def test_scaled_dot_product_attention(q_shape, kv_length, value_depth, options):
    torch.manual_seed(7)
    options = dict(options)
    kv_heads = options.pop("kv_heads", q_shape[-3] if len(q_shape) >= 3 else None)
    batch = q_shape[:-3] + (kv_heads,) if kv_heads is not None else q_shape[:-2]
    q = torch.randn(q_shape)
    k = torch.randn(batch + (kv_length, q_shape[-1]))
    v = torch.randn(batch + (kv_length, value_depth))
    run = assert_close_to_torch(sdpa(**options), (q, k, v))
    assert run.result.report["partitions"][0]["aten_ops"] == ["aten.scaled_dot_product_attention.default"]
    assert run.result.report["partitions"][0]["tosa_ops"].count("MATMUL") == 2


@pytest.mark.parametrize(
    "mask_kind,mask_shape,kv_heads",
    [("bool", (3, 5), 2), ("bool", (2, 1, 1, 5), 2), ("float", (1, 2, 3, 5), 2), ("float", (2, 4, 3, 5), 1)],
    ids=str,
)
def test_scaled_dot_product_attention_with_mask(mask_kind, mask_shape, kv_heads):
    """Masks broadcast over batch/heads; with grouped-query attention too (kv_heads < 4 query heads)."""
    torch.manual_seed(8)
    heads = mask_shape[1] if len(mask_shape) == 4 and mask_shape[1] > 2 else 2
    q, k, v = torch.randn(2, heads, 3, 4), torch.randn(2, kv_heads, 5, 4), torch.randn(2, kv_heads, 5, 6)
    if mask_kind == "bool":
        mask = torch.rand(mask_shape) > 0.3
        mask[..., 0] = True
    else:
        mask = torch.randn(mask_shape)
    assert_close_to_torch(sdpa(enable_gqa=kv_heads != heads), (q, k, v, mask))


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_scaled_dot_product_attention_fully_masked_rows_give_zeros(mask_kind):
    """Torch returns zeros (not NaN) for a query whose keys are all masked out."""
    torch.manual_seed(9)
    q, k, v = torch.randn(1, 2, 3, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 6)
    keep = torch.ones(3, 5, dtype=torch.bool)
    keep[1] = False
    mask = keep if mask_kind == "bool" else torch.zeros(3, 5).masked_fill(~keep, float("-inf"))
    run = assert_close_to_torch(sdpa(), (q, k, v, mask))
    assert (run.tosa_outputs[0][:, :, 1] == 0).all()


def test_float16_accumulates_in_float32():
    """MATMUL writes FP32 and casts once, as torch accumulates half products in float on CPU."""
    torch.manual_seed(10)
    _x, _y, q = torch.randn(5, 32), torch.randn(32, 7), torch.randn(1, 2, 4, 8)  # mm's and linear's
    run = assert_close_to_torch(sdpa(), (q.half(), q.half(), q.half()), atol=2e-3, rtol=2e-3)
    assert "CAST" in run.result.report["partitions"][0]["tosa_ops"]


def _aten_node(fn, inputs, target):
    program = torch.export.export(Fn(fn), inputs, strict=False)
    (node,) = [n for n in program.graph.nodes if n.op == "call_function" and n.target == target]
    return node


@pytest.mark.parametrize(
    "options,shapes,expected",
    [
        ({"dropout_p": 0.1}, ((1, 2, 3, 4), (1, 2, 3, 4)), "dropout_p=0.1"),
        ({"dropout_p": 0.5, "is_causal": True}, ((2, 3, 4), (2, 5, 4)), "dropout_p=0.5"),
    ],
    ids=["dropout", "dropout-causal"],
)
def test_scaled_dot_product_attention_rejections(options, shapes, expected):
    """Rejected attention is decomposed by ExecuTorch instead of kept whole: check() must say why."""
    q_shape, kv_shape = shapes
    inputs = (torch.randn(q_shape), torch.randn(kv_shape), torch.randn(kv_shape))
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **options)  # noqa: E731
    node = _aten_node(fn, inputs, torch.ops.aten.scaled_dot_product_attention.default)
    reason = rejection_reason(node, TosaSpecification.create_from_string("TOSA-1.0+FP"))
    assert reason is not None and expected in reason


# --- INT ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_attention(target, tmp_path):
    check_attention(attention(), qkv(1, 2, 5, 5, 8), target, tmp_path)


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_causal_attention(target, tmp_path):
    check_attention(attention(is_causal=True), qkv(2, 2, 9, 9, 16, scale=2.0), target, tmp_path)


def test_attention_scale_rank3_long_rows(tmp_path):
    """No head dim, more queries than keys, head dim 32 and an explicit scale."""
    check_attention(attention(scale=0.3), qkv(2, 0, 16, 12, 32), INT8, tmp_path)


def test_int8_attention_exps_from_one_int16_table(tmp_path):
    """With int16 TABLEs allowed (int16 extension; Ethos-U85) and rows of at most 255 keys,
    int8 attention looks its exps up in ONE int16 TABLE (plus the reciprocal's int8 guess); a
    causal mask's penalties saturate its positions to an exp of exactly 0. The weights
    then meet v in one int16 MATMUL (Q15 against v - zero point) instead of two int8 ones."""
    quantizer = TOSAQuantizer(INT16).set_global(get_symmetric_quantization_config())
    for options in ({}, {"is_causal": True}):
        run = check_attention(attention(**options), qkv(1, 2, 8, 8, 16), INT16, tmp_path, quantizer=quantizer)
        assert run.result.report["partitions"][0]["tosa_ops"].count("TABLE") == 2


def test_int8_attention_with_large_scores_runs_head_by_head(tmp_path):
    """Where the heads' int32 scores together pass 64 KiB (4 heads of 128 x 128: 256 KiB),
    int8 attention with exps from one int16 TABLE runs head by head, each head's output
    concatenated (Ethos-U85 keeps one head's scores in SRAM); 2 heads of 64 x 64 (32 KiB)
    stay batched. Both within 1 LSB of the quantized model and accepted by Vela for U85."""
    quantizer = TOSAQuantizer(INT16).set_global(get_symmetric_quantization_config())
    for heads, length, matmuls in ((4, 128, 8), (2, 64, 2)):
        run = assert_quantized_close(
            attention(), qkv(1, heads, length, length, 16, scale=0.5), INT16, max_lsb=1, quantizer=quantizer
        )
        ops = run.result.report["partitions"][0]["tosa_ops"]
        assert ops.count("MATMUL") == matmuls and ops.count("CONCAT") == (1 if matmuls > 2 else 0), ops
        compile_pte_partition_with_vela(run.result.pte, ("ethos-u85-256",), tmp_path)


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_float_mask(target, tmp_path):
    """An additive mask, quantized like q, k and v, added to the scores on their grid."""
    inputs = qkv(1, 2, 5, 7, 8) + (torch.randn(1, 2, 5, 7),)
    check_attention(
        Fn(lambda q, k, v, mask: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)), inputs, target, tmp_path
    )


def test_runtime_bool_masks():
    """A [L, S] mask and a key-padding [B, 1, 1, S] one: masked scores get exp 0. (Vela
    takes no bool partition inputs, so these are for TOSA targets.)"""
    torch.manual_seed(5)
    fn = lambda q, k, v, square, padding: (  # noqa: E731
        F.scaled_dot_product_attention(q, k, v, attn_mask=square),
        F.scaled_dot_product_attention(q, k, v, attn_mask=padding),
    )
    square = torch.rand(6, 7) > 0.3
    padding = torch.ones(2, 1, 1, 7, dtype=torch.bool)
    padding[1, ..., 4:] = False
    assert_quantized_close(Fn(fn), qkv(2, 3, 6, 7, 8) + (square, padding), INT8, max_lsb=1)


class _BufferedMask(torch.nn.Module):
    """A constant bool mask with one query that sees no key (torch then returns zeros)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(6)
        mask = torch.rand(5, 7) > 0.4
        mask[2] = False
        self.register_buffer("mask", mask)

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask)


def test_constant_bool_mask_folds(tmp_path):
    run = check_attention(_BufferedMask(), qkv(1, 2, 5, 7, 8), INT8, tmp_path)
    # The mask folded into constants: q, k and v are the partition's only inputs (no bool CAST).
    assert len(run.result.report["partitions"][0]["inputs"]) == 3
    assert run.dequantized[0][:, :, 2].abs().max() == 0


def test_grouped_query_attention_stays_on_cpu():
    """Rejected whole, so edge lowering decomposes it (expand/bmm/...) instead of keeping it."""
    q = torch.randn(1, 4, 5, 8)
    k, v = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
    result = compile_model(attention(enable_gqa=True), (q, k, v), INT8, quantize=True)
    for partition in result.report["partitions"]:
        assert "aten.scaled_dot_product_attention.default" not in partition["aten_ops"]
    graph = torch.export.export(result.quantized_model, (q, k, v)).graph
    (node,) = [n for n in graph.nodes if n.target == torch.ops.aten.scaled_dot_product_attention.default]
    reason = rejection_reason(node, TosaSpecification.create_from_string(INT8))
    assert reason == "enable_gqa with fewer key/value heads is not lowered for the INT profile"
