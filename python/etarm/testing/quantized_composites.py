"""Checks of the composites lowered whole in int32 on the INT profile (softmax, log_softmax,
layer/group/RMS/batch norm, var/std, scaled_dot_product_attention) and of their split for
Ethos-U55 (tests/passes/test_split_composites.py).

Each partition is compared with the convert_pt2e'd model in eager (quantize(op(dequantize
(x))) computed in float) and compiled by Vela for the Ethos-U NPUs that reuse these
lowerings: each op they emit must be one the NPUs run.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_reference import QuantizedRun, assert_quantized_close
from etarm.testing.tosa_graphs import compile_pte_partition_with_vela

INT8, INT16 = "TOSA-1.0+INT", "TOSA-1.0+INT+int16"
ETHOS_U = ("ethos-u55-128", "ethos-u85-256")


def seeded(*shape, scale=2.0, seed=0) -> torch.Tensor:
    torch.manual_seed(seed + sum(shape))
    return torch.randn(shape) * scale


def check_with_vela(module, inputs, target, tmp_path, max_lsb=1.0, ethos_u=ETHOS_U, quantizer=None) -> QuantizedRun:
    """Within ``max_lsb`` of the quantized model, integer outputs of the target's type
    (or the quantizer's int8), and the partition accepted by Vela."""
    run = assert_quantized_close(module, inputs, target, max_lsb=max_lsb, quantizer=quantizer)
    partition = run.result.report["partitions"][0]
    assert {o["qdtype"] for o in partition["outputs"]} == {"int16" if target == INT16 and quantizer is None else "int8"}
    compile_pte_partition_with_vela(run.result.pte, ethos_u, tmp_path)
    return run


def assert_matches_float_model(run: QuantizedRun, module, inputs, output=0) -> None:
    """The quantized model is the float one between quantize/dequantize: the norm's
    parameters (int32, one scale per row) come back exactly."""
    dequantized = [q.dequantize(q.quantize(x)) for q, x in zip(run.input_qparams[output:], inputs)]
    with torch.no_grad():
        want = module(*dequantized)
    target = run.output_qparams[output]
    difference = (target.dequantize(target.quantize(want)) - run.expected[output]).abs().max()
    assert difference <= float(target.scale) * 1.001


class Norms(torch.nn.Module):
    """Each norm of ``norms`` applied to its own input, with random affine parameters."""

    def __init__(self, *norms):
        super().__init__()
        self.norms = torch.nn.ModuleList(norms)
        torch.manual_seed(3)
        with torch.no_grad():
            for parameter in self.parameters():
                parameter.normal_()

    def forward(self, *inputs):
        return tuple(norm(x) for norm, x in zip(self.norms, inputs))


# --- attention ------------------------------------------------------------------------------------


def qkv(batch, heads, length, source_length, depth, scale=1.0, seed=0) -> tuple[torch.Tensor, ...]:
    torch.manual_seed(seed + length + depth)
    lead = (batch, heads) if heads else (batch,)
    return (
        torch.randn(lead + (length, depth)) * scale,
        torch.randn(lead + (source_length, depth)) * scale,
        torch.randn(lead + (source_length, depth)),
    )


def attention(**options) -> Fn:
    return Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **options))


def check_attention(module, inputs, target, tmp_path, quantizer=None) -> QuantizedRun:
    """1 LSB of the quantized model; scores, then the weights' three int8 pieces (two int16
    halves for int16 v; one int16 MATMUL for int8 v when int16 is allowed); no float EXP or
    RECIPROCAL; accepted by Vela (int16 TABLE and MATMUL: U85 only)."""
    run = assert_quantized_close(module, inputs, target, max_lsb=1, quantizer=quantizer)
    partition = run.result.report["partitions"][0]
    int16 = target == INT16 and quantizer is None
    assert partition["outputs"][0]["qdtype"] == ("int16" if int16 else "int8")
    ops = partition["tosa_ops"]
    matmuls = 2 if quantizer is not None else 3 if int16 else 4
    assert ops.count("MATMUL") == matmuls and "EXP" not in ops and "RECIPROCAL" not in ops
    npus = ("ethos-u85-256",) if target == INT16 else ETHOS_U
    compile_pte_partition_with_vela(run.result.pte, npus, tmp_path)
    return run
