"""layer_norm (aten.native_layer_norm), lowered whole.

INT (lowering/normalization.py): exact integer mean and variance sums, a Newton rsqrt to
~2**-28 (int8 rows of up to 128 values: exact T = N sum(x^2) - sum(x)^2 and one Newton
step, 2**-14.8) and >= 20 bits in the normalized values before the 30-bit weight MUL (or
the RESCALE's per-channel multipliers for a positive weight) and the bias ADD. Only the
final RESCALE rounds to the output grid: 1 LSB. Every partition is also compiled by Vela.

The split for Ethos-U55: tests/passes/test_split_composites.py.
Every target (FP, INT, Ethos-U55, Ethos-U85): the "native_layer_norm" rows of
python/etarm/testing/op_coverage.py, run by tests/operators/test_op_coverage.py.
"""

import pytest
import torch

from etarm.compiler import compile_model
from etarm.lowering import normalization
from etarm.testing.cpu_fallback import Fn
from etarm.testing.quantized_composites import INT8, INT16, Norms, assert_matches_float_model, check_with_vela, seeded
from etarm.testing.random_parameters import randomize
from etarm.testing.tosa_reference import assert_close_to_torch


@pytest.mark.parametrize(
    "shape,normalized,affine,bias",
    [
        ((7,), 1, True, True),
        ((3, 5), 1, False, False),
        ((2, 3, 4), 2, True, True),
        ((2, 3, 4, 5), 3, True, False),
        ((1, 2, 3, 4, 5), 1, True, True),
    ],
    ids=str,
)
def test_layer_norm(shape, normalized, affine, bias):
    torch.manual_seed(0)
    module = randomize(torch.nn.LayerNorm(shape[-normalized:], elementwise_affine=affine, bias=bias))
    run = assert_close_to_torch(module, (torch.randn(shape) * 3 + 1,))
    assert run.result.report["partitions"][0]["tosa_ops"].count("REDUCE_SUM") == 2  # one axis after flattening


def test_native_layer_norm_mean_and_rstd_results():
    torch.manual_seed(1)
    weight, bias = torch.randn(4, 5), torch.randn(4, 5)
    fn = lambda x: torch.native_layer_norm(x, [4, 5], weight, bias, 1e-3)  # noqa: E731
    assert_close_to_torch(Fn(fn), (torch.randn(2, 3, 4, 5),))


def test_float16():
    """FP16 statistics are computed in FP32 like torch on CPU; tolerance ~ one FP16 rounding."""
    torch.manual_seed(7)
    module = randomize(torch.nn.LayerNorm(8))
    assert_close_to_torch(module.half().eval(), ((torch.randn(3, 4, 8) * 2).half(),), atol=4e-3, rtol=2e-3)


def test_bfloat16_stays_on_cpu_with_a_reason():
    module = torch.nn.LayerNorm(8).to(torch.bfloat16)
    report = compile_model(module, (torch.randn(2, 8, dtype=torch.bfloat16),), "TOSA-1.0+FP").report
    reasons = [entry["reason"] for entry in report["cpu_ops"] if entry["op"].startswith("aten.native_layer_norm")]
    assert len(reasons) == 1 and "needs the TOSA bf16 extension" in reasons[0], reasons


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_quantized(target, tmp_path):
    """Weight and bias over the last dim and over the last two; no affine; weight only."""
    module = Norms(
        torch.nn.LayerNorm(8),
        torch.nn.LayerNorm((4, 6)),
        torch.nn.LayerNorm(5, elementwise_affine=False),
        torch.nn.LayerNorm(7, bias=False),
    )
    inputs = (seeded(2, 5, 8, scale=3.0), seeded(3, 4, 6), seeded(5, 2, 5, scale=0.1), seeded(7))
    run = check_with_vela(module, inputs, target, tmp_path)
    for index in (0, 1):
        assert_matches_float_model(run, lambda x: module.norms[index](x), inputs[index : index + 1], index)


@pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])
def test_positive_weight_goes_into_the_rescale(target, tmp_path):
    """A positive weight along the last axis becomes the final RESCALE's per-channel
    multipliers (one MUL fewer per norm than a weight of mixed signs), with or without a bias."""

    def compiled(sign):
        module = Norms(torch.nn.LayerNorm(16), torch.nn.LayerNorm(16, bias=False))
        with torch.no_grad():
            for norm in module.norms:
                norm.weight.abs_().add_(0.05)
                norm.weight[3] *= sign
        run = check_with_vela(module, (seeded(3, 16, scale=2.0), seeded(2, 4, 16, seed=1)), target, tmp_path)
        return run.result.report["partitions"][0]["tosa_ops"].count("MUL")

    assert compiled(1.0) == compiled(-1.0) - 2


def test_int8_short_and_long_rows(tmp_path):
    """int8 rows of N <= 181 (here 32 and a conformer's 144) take the exact statistics
    T = N sum(x^2) - sum(x)^2 (no REDUCE_MAX/MIN); longer rows (here 192) scale by the row's
    spread first. Both hold nearly flat rows (one step of spread, where the eps term
    dominates) and a large eps."""
    torch.manual_seed(5)
    flat = torch.full((6, 32), 0.7)
    flat[::2, ::5] += 0.02  # a step or less of spread
    module = Norms(
        torch.nn.LayerNorm(32), torch.nn.LayerNorm(32, eps=0.5), torch.nn.LayerNorm(192), torch.nn.LayerNorm(144)
    )
    inputs = (
        torch.cat([flat, seeded(6, 32)]),
        seeded(4, 32),
        torch.cat([torch.full((2, 192), -0.3), seeded(3, 192)]),
        # the widest spread: half the row at each end of the int8 range
        torch.cat([torch.full((2, 144), 0.4), seeded(3, 144, scale=4.0), torch.tensor([[-12.0, 12.0] * 72])]),
    )
    inputs[2][0, ::7] += 0.02
    run = check_with_vela(module, inputs, INT8, tmp_path)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    # REDUCE_MAX and REDUCE_MIN for the 192-value rows only.
    assert ops.count("REDUCE_MAX") == 1 and ops.count("REDUCE_MIN") == 1


def test_int8_norms_of_many_rows_run_in_blocks_of_rows(monkeypatch, tmp_path):
    """Short-row int8 layer norms whose int32 values pass 64 KiB (a conformer's 128 x 144)
    normalize equal blocks of rows (here two of 64) one after another, each block's int8 result
    concatenated: the same outputs as one pass over all rows. 197 rows (no equal blocks) and
    rows of 192 values (the other statistics) stay whole."""
    module = Norms(torch.nn.LayerNorm(144), torch.nn.LayerNorm(144), torch.nn.LayerNorm(192))
    torch.manual_seed(3)
    randomize(module)
    inputs = (seeded(1, 128, 144, scale=2.0), seeded(1, 197, 144, seed=1), seeded(1, 128, 192, seed=2))
    blocked = check_with_vela(module, inputs, INT8, tmp_path, ethos_u=("ethos-u85-256",))
    ops = blocked.result.report["partitions"][0]["tosa_ops"]
    assert ops.count("CONCAT") == 1 and ops.count("REDUCE_MAX") == 1, ops
    monkeypatch.setattr(normalization, "_BLOCK_BYTES", 1 << 40)
    whole = check_with_vela(module, inputs, INT8, tmp_path, ethos_u=())
    assert "CONCAT" not in whole.result.report["partitions"][0]["tosa_ops"]
    for got, want in zip(blocked.tosa_outputs, whole.tosa_outputs):
        assert (got == want).all()
