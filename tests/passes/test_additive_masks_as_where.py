"""AdditiveMasksAsWhere: an add of a constant -inf mask becomes a where selecting -inf, so a llama-style causal
mask is quantized like masked_fill's instead of failing (its observer has no finite range: "cannot rescale by 0.0")."""

import pytest
import torch
from torch import nn

from etarm.passes.additive_masks_as_where import AdditiveMasksAsWhere
from etarm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from etarm.testing.cpu_fallback import Fn
from etarm.testing.edge_programs import only_call
from etarm.testing.quantized_reference import assert_quantized_close

LENGTH = 8


def causal(shape=(LENGTH, LENGTH)) -> torch.Tensor:
    return torch.triu(torch.full(shape, float("-inf")), diagonal=1)


class BufferMask(nn.Module):
    """The mask a buffer, sliced to the sequence (as llama implementations keep it)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", causal((1, 1, 2 * LENGTH, 2 * LENGTH)))

    def forward(self, scores):
        return self.mask[:, :, :LENGTH, :LENGTH] + scores


class ForwardMask(nn.Module):
    """The mask built in forward from torch.full and triu."""

    def forward(self, scores):
        return scores + causal()


class BiasedMask(nn.Module):
    """Finite entries besides the -inf ones (a distance bias): they stay an add."""

    def __init__(self):
        super().__init__()
        distance = (torch.arange(LENGTH)[None] - torch.arange(LENGTH)[:, None]).abs().float()
        self.register_buffer("mask", causal() - 0.25 * distance)

    def forward(self, scores):
        return scores + self.mask


class Attention(nn.Module):
    def __init__(self, masking: nn.Module):
        super().__init__()
        self.masking = masking

    def forward(self, q, k, v):
        return torch.softmax(self.masking(q @ k.transpose(-1, -2) / 8), dim=-1) @ v


def quantizer():
    return TOSAQuantizer("TOSA-1.0+INT").set_global(get_symmetric_quantization_config())


def exported(module):
    torch.manual_seed(0)
    inputs = (torch.randn(1, 2, LENGTH, LENGTH),)
    return torch.export.export(module, inputs, strict=False).module(), inputs


MASKS = {"buffer": BufferMask, "forward": ForwardMask, "biased": BiasedMask}


@pytest.mark.parametrize("name", MASKS)
def test_an_added_minus_infinity_mask_becomes_a_where(name):
    module = MASKS[name]()
    model, inputs = exported(module)
    assert AdditiveMasksAsWhere().run(model, quantizer()) == 1
    where = only_call(model, "aten.where.ScalarSelf")
    flags = getattr(model, where.args[0].target)
    assert flags.dtype == torch.bool and torch.equal(flags.reshape(LENGTH, LENGTH), torch.isneginf(causal()))
    assert where.args[1] == float("-inf")
    adds = [n for n in model.graph.nodes if n.op == "call_function" and "add" in str(n.target)]
    assert len(adds) == (1 if name == "biased" else 0)  # only the finite entries are added
    torch.testing.assert_close(model(*inputs), module(*inputs), rtol=0, atol=0)


OTHERS = {
    "finite_constant": lambda scores: scores + torch.full((LENGTH, LENGTH), -1e4).triu(1),
    "two_inputs": lambda scores: scores + scores.transpose(-1, -2),
    "plus_infinity": lambda scores: scores + torch.full((LENGTH, LENGTH), float("inf")).triu(1),
}


@pytest.mark.parametrize("name", OTHERS)
def test_other_adds_stay(name):
    model, _ = exported(Fn(OTHERS[name]))
    before = [(n.target, n.args) for n in model.graph.nodes]
    assert AdditiveMasksAsWhere().run(model, quantizer()) == 0
    assert [(n.target, n.args) for n in model.graph.nodes] == before


@pytest.mark.parametrize("name", MASKS)
def test_causal_attention_with_an_added_mask_compiles_quantized(name):
    torch.manual_seed(1)

    def qkv():
        return tuple(torch.randn(1, 2, LENGTH, 16) for _ in range(3))

    calibration = [qkv() for _ in range(2)]
    run = assert_quantized_close(Attention(MASKS[name]()), qkv(), max_lsb=1, calibration_data=calibration)
    assert "SELECT" in run.result.report["partitions"][0]["tosa_ops"]
