"""scaled_dot_product_attention on the TOSA INT profile, lowered whole (integer_attention.py).

Compared with the convert_pt2e'd model in eager, i.e. quantize(sdpa(dequantize(q, k, v)))
computed in float. Bound: 1 LSB. The scores stay int32 MATMUL accumulators, the softmax is
the int32 one of integer_softmax.py (int8: exps of distances on a grid of 2**-16 of their
span, 2**-12.5 relative, moving the output by < 0.1 LSB), and the probabilities
reach the second MATMUL as two integer halves of a Q15 (int8) or Q29 (int16) value, so
their truncation costs < S * 2**-16 of max|v| (0.03 LSB for 16 keys); the final RESCALE
rounds once (0.5 LSB), as the reference does (another 0.5 at most).

int8 partitions are also compiled by Vela for Ethos-U55 and U85; int16 ones (int16 x
int16 MATMUL) for U85 only, the NPU that has that MATMUL.
"""


import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.operators.registry import rejection_reason
from etarm.quantizer.quantization_config import get_symmetric_quantization_config
from etarm.quantizer.tosa_quantizer import EthosUQuantizer, TOSAQuantizer
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_graphs import compile_pte_partition_with_vela
from etarm.tosa.specification import TosaSpecification

INT8, INT16 = "TOSA-1.0+INT", "TOSA-1.0+INT+int16"


def _qkv(batch, heads, length, source_length, depth, scale=1.0, seed=0):
    torch.manual_seed(seed + length + depth)
    lead = (batch, heads) if heads else (batch,)
    return (
        torch.randn(lead + (length, depth)) * scale,
        torch.randn(lead + (source_length, depth)) * scale,
        torch.randn(lead + (source_length, depth)),
    )


def _check(module, inputs, target, tmp_path, quantizer=None):
    run = assert_quantized_close(module, inputs, target, max_lsb=1, quantizer=quantizer)
    partition = run.result.report["partitions"][0]
    int16 = target == INT16 and quantizer is None
    assert partition["outputs"][0]["qdtype"] == ("int16" if int16 else "int8")
    ops = partition["tosa_ops"]
    # Scores, then the weights' two int8 halves (one int16 MATMUL for int8 v when int16 is allowed).
    assert ops.count("MATMUL") == (2 if quantizer is not None else 3) and "EXP" not in ops and "RECIPROCAL" not in ops
    npus = ("ethos-u85-256",) if target == INT16 else ("ethos-u55-128", "ethos-u85-256")  # int16 TABLE/MATMUL: U85
    compile_pte_partition_with_vela(run.result.pte, npus, tmp_path)
    return run


def _attention(**options):
    return Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **options))


def _masked(**options):
    return Fn(lambda q, k, v, mask: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **options))


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_attention(target, tmp_path):
    _check(_attention(), _qkv(1, 2, 5, 5, 8), target, tmp_path)


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_causal_attention(target, tmp_path):
    _check(_attention(is_causal=True), _qkv(2, 2, 9, 9, 16, scale=2.0), target, tmp_path)


def test_attention_scale_rank3_long_rows(tmp_path):
    """No head dim, more queries than keys, head dim 32 and an explicit scale."""
    _check(_attention(scale=0.3), _qkv(2, 0, 16, 12, 32), INT8, tmp_path)


def test_int8_attention_exps_from_one_int16_table(tmp_path):
    """With int16 TABLEs allowed (int16 extension; Ethos-U85) and a bound on the output's
    error (the probabilities' total error times max |v|) under half an output step, int8
    attention looks its exps up in ONE int16 TABLE (plus the reciprocal's int8 guess); a
    causal mask's penalties saturate its positions to an exp of exactly 0. The weights
    then meet v in one int16 MATMUL (Q15 against v - zero point) instead of two int8 ones."""
    quantizer = TOSAQuantizer(INT16).set_global(get_symmetric_quantization_config())
    for options in ({}, {"is_causal": True}):
        run = _check(_attention(**options), _qkv(1, 2, 8, 8, 16), INT16, tmp_path, quantizer=quantizer)
        assert run.result.report["partitions"][0]["tosa_ops"].count("TABLE") == 2


def test_attention_split_for_ethos_u55(tmp_path):
    """EthosUQuantizer on U55/U65 splits unmasked attention into scaled q, the scores' MATMUL,
    an int8 softmax and the weights' MATMUL (quantizer/split_composites.py); the lowering
    matches that quantized model, with its int8 weights, within one step."""
    quantizer = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())
    run = _check(_attention(), _qkv(1, 4, 8, 8, 8), INT8, tmp_path, quantizer=quantizer)
    ops = run.result.report["partitions"][0]["aten_ops"]
    assert "aten.scaled_dot_product_attention.default" not in ops and "aten._softmax.default" in ops


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_float_mask(target, tmp_path):
    """An additive mask, quantized like q, k and v, added to the scores on their grid."""
    inputs = _qkv(1, 2, 5, 7, 8) + (torch.randn(1, 2, 5, 7),)
    _check(_masked(), inputs, target, tmp_path)


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
    assert_quantized_close(Fn(fn), _qkv(2, 3, 6, 7, 8) + (square, padding), INT8, max_lsb=1)


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
    run = _check(_BufferedMask(), _qkv(1, 2, 5, 7, 8), INT8, tmp_path)
    # The mask folded into constants: q, k and v are the partition's only inputs (no bool CAST).
    assert len(run.result.report["partitions"][0]["inputs"]) == 3
    assert run.dequantized[0][:, :, 2].abs().max() == 0


def test_grouped_query_attention_stays_on_cpu():
    """Rejected whole, so edge lowering decomposes it (expand/bmm/...) instead of keeping it."""
    q = torch.randn(1, 4, 5, 8)
    k, v = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
    module = _attention(enable_gqa=True)
    result = compile_model(module, (q, k, v), INT8, quantize=True)
    for partition in result.report["partitions"]:
        assert "aten.scaled_dot_product_attention.default" not in partition["aten_ops"]
    graph = torch.export.export(result.quantized_model, (q, k, v)).graph
    (node,) = [n for n in graph.nodes if n.target == torch.ops.aten.scaled_dot_product_attention.default]
    reason = rejection_reason(node, TosaSpecification.create_from_string(INT8))
    assert reason == "enable_gqa with fewer key/value heads is not lowered for the INT profile"
