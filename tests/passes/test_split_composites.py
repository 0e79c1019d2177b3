"""SplitComposites (python/etarm/passes/split_composites.py): EthosUQuantizer on Ethos-U55/U65
splits layer and RMS norms and unmasked attention into their arithmetic with int8 between
the steps; the lowering matches that quantized model within one step, and every step runs
on the NPU (each partition also compiled by Vela for ethos-u55-128)."""

import torch

from etarm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from etarm.testing.quantized_composites import INT8, Norms, attention, check_attention, check_with_vela, qkv, seeded


def _u55_quantizer():
    return EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())


def test_norms_split_for_ethos_u55(tmp_path):
    """Layer and RMS norms become means, a reciprocal square root and products."""
    module = Norms(torch.nn.LayerNorm(16), torch.nn.LayerNorm((3, 5), bias=False), torch.nn.RMSNorm(16))
    inputs = (seeded(2, 4, 16), seeded(2, 3, 5, scale=0.3), seeded(3, 16) + 1.0)
    run = check_with_vela(module, inputs, INT8, tmp_path, ethos_u=("ethos-u55-128",), quantizer=_u55_quantizer())
    ops = run.result.report["partitions"][0]["aten_ops"]
    assert "aten.rsqrt.default" in ops and not any("norm" in op for op in ops)
    assert not run.result.report["cpu_ops"] or all("quantize" in entry["op"] for entry in run.result.report["cpu_ops"])


def test_attention_split_for_ethos_u55(tmp_path):
    """Unmasked attention becomes scaled q, the scores' MATMUL, an int8 softmax and the
    weights' MATMUL; the lowering matches that quantized model, with its int8 weights."""
    run = check_attention(attention(), qkv(1, 4, 8, 8, 8), INT8, tmp_path, quantizer=_u55_quantizer())
    ops = run.result.report["partitions"][0]["aten_ops"]
    assert "aten.scaled_dot_product_attention.default" not in ops and "aten._softmax.default" in ops
