"""Quantized programs narrow int64 token ids and positions to int32 (the TOSA pipeline's int64 passes), so
embeddings and arange run in the INT partition and on Ethos-U85 (GATHER); Ethos-U55 keeps them on CPU with
the reason. Only the cast of the int64 model input stays on CPU."""

import torch
from torch import nn

from etarm.compiler import compile_model
from etarm.models.registry import BUILTIN
from etarm.testing.quantized_reference import assert_quantized_close, inner_cpu_ops


class TokensAndPositions(nn.Module):
    """Token plus learned position embeddings over arange, as decoders start."""

    def __init__(self, vocabulary=300):
        super().__init__()
        self.tokens = nn.Embedding(vocabulary, 16)
        self.positions = nn.Embedding(8, 16)
        self.head = nn.Linear(16, 4)

    def forward(self, ids):
        return self.head(self.tokens(ids) + self.positions(torch.arange(ids.shape[-1])))


def _ids(vocabulary=300):
    torch.manual_seed(0)
    ids = torch.randint(0, vocabulary, (2, 8))
    ids[0, :2] = torch.tensor([0, vocabulary - 1])  # both ends of the table
    return (ids,)


def _delegated(result) -> set:
    return {op for partition in result.report["partitions"] for op in partition["aten_ops"]}


def test_quantized_embeddings_of_int64_ids_match_the_quantized_model_on_tosa():
    module = TokensAndPositions().eval()
    run = assert_quantized_close(module, _ids(), max_lsb=1.0)
    assert "aten.embedding.default" in _delegated(run.result)
    # As on TOSA FP, a TOSA partition reads the int64 ids itself and narrows them inside.
    assert run.result.report["partitions"][0]["inputs"][0]["dtype"] == "int64"


def _only_the_input_cast_on_cpu(result):
    inner = inner_cpu_ops(result.report)
    assert [op["op"] for op in inner] == ["dim_order_ops._to_dim_order_copy.default"], inner
    assert "int64" in inner[0]["reason"]


def test_ethos_u85_gathers_the_embeddings_on_the_npu():
    result = compile_model(TokensAndPositions().eval(), _ids(), "ethos-u85-256", quantize=True)
    assert len(result.report["partitions"]) == 1
    assert "aten.embedding.default" in _delegated(result)
    assert result.report["partitions"][0]["inputs"][0]["dtype"] == "int32"
    _only_the_input_cast_on_cpu(result)


def test_ethos_u55_keeps_embeddings_on_cpu_with_the_reason():
    result = compile_model(TokensAndPositions().eval(), _ids(), "ethos-u55-128", quantize=True)
    reasons = [op["reason"] for op in result.report["cpu_ops"] if op["op"] == "aten.embedding.default"]
    assert len(reasons) == 2 and all("GATHER" in reason for reason in reasons)
    assert "aten.linear.default" in _delegated(result)


def test_the_builtin_llama_gathers_its_tokens_on_the_npu():
    model, inputs = BUILTIN["llama"]()
    result = compile_model(model, inputs, "ethos-u85-256", quantize=True)
    assert len(result.report["partitions"]) == 1
    assert "aten.embedding.default" in _delegated(result)
    _only_the_input_cast_on_cpu(result)
