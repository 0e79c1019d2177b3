"""softmax / log_softmax, layer/group/RMS/batch norm and var/std on the TOSA INT profile.

Each op is lowered whole in int32 (operators/integer_softmax.py, operators/normalization.py)
and compared with the convert_pt2e'd model in eager, i.e. with quantize(op(dequantize(x)))
computed in float. Bound: 1 LSB everywhere. Only the final RESCALE rounds to the output
grid (0.5 LSB); the float reference rounds the same value (another 0.5 LSB at most), and
the integer intermediates add well under 0.01 LSB:

- softmax/log_softmax: exps as 15-bit (int8 TABLE pairs) or 21-bit (int16 TABLE)
  mantissas with exponents, row sums that keep the bits below their grid, a Q29
  reciprocal (Newton, ~2**-28; ~2**-25 from an int16 TABLE's guess and one step) and ln
  from interpolated tables (~2**-19); int8 rows short enough for its bound take their
  exps with absolute precision instead (2**-15 of exp(0) each: one int16 TABLE with the
  int16 extension, else two int8 TABLEs);
- norms: exact integer mean and variance sums, a Newton rsqrt to ~2**-28 (int8 rows of
  up to 128 values: exact T = N sum(x^2) - sum(x)^2 and one Newton step, 2**-14.8) and
  >= 20 bits in the normalized values before the 30-bit weight MUL (or the RESCALE's
  per-channel multipliers for a positive weight) and the bias ADD;
- batch norm: one per-channel MUL (30-bit multipliers) and ADD on int32;
- var/std: exact deviations, squares summed with a rounding shift sized for the row.

Every partition is also compiled by Vela for Ethos-U55 and U85, the targets that reuse
these lowerings: each op they emit must be one the NPUs run.
"""


import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.testing.cpu_fallback import Fn
from etarm.quantizer.quantization_config import get_symmetric_quantization_config
from etarm.quantizer.tosa_quantizer import EthosUQuantizer, TOSAQuantizer
from etarm.testing.quantized_reference import assert_quantized_close
from etarm.testing.tosa_graphs import compile_pte_partition_with_vela

INT8, INT16 = "TOSA-1.0+INT", "TOSA-1.0+INT+int16"
TARGETS = pytest.mark.parametrize("target", [INT8, INT16], ids=["int8", "int16"])


def _x(*shape, scale=2.0, seed=0):
    torch.manual_seed(seed + sum(shape))
    return torch.randn(shape) * scale


def _check(module, inputs, target, tmp_path, max_lsb=1.0, ethos_u=("ethos-u55-128", "ethos-u85-256"), quantizer=None):
    """Within ``max_lsb`` of the quantized model, integer outputs of the target's type
    (or the quantizer's int8), and the partition accepted by Vela."""
    run = assert_quantized_close(module, inputs, target, max_lsb=max_lsb, quantizer=quantizer)
    partition = run.result.report["partitions"][0]
    assert {o["qdtype"] for o in partition["outputs"]} == {"int16" if target == INT16 and quantizer is None else "int8"}
    compile_pte_partition_with_vela(run.result.pte, ethos_u, tmp_path)
    return run


def _cpu_reasons(result, op):
    return [entry["reason"] for entry in result.report["cpu_ops"] if entry["op"] == op]


def _assert_matches_float_model(run, module, inputs, output=0):
    """The quantized model is the float one between quantize/dequantize: the norm's
    parameters (int32, one scale per row) come back exactly."""
    dequantized = [q.dequantize(q.quantize(x)) for q, x in zip(run.input_qparams[output:], inputs)]
    with torch.no_grad():
        want = module(*dequantized)
    target = run.output_qparams[output]
    difference = (target.dequantize(target.quantize(want)) - run.expected[output]).abs().max()
    assert difference <= float(target.scale) * 1.001


# --- softmax / log_softmax -------------------------------------------------------------------
@TARGETS
def test_softmax(target, tmp_path):
    """dim last, not last, negative and first; ranks 2-4; fixed [0, 1] output range."""
    fn = lambda a, b, c: (  # noqa: E731
        torch.softmax(a, -1),
        torch.softmax(b, 1),
        torch.softmax(c, -1),
        torch.softmax(c * 0.25, 0),
    )
    run = _check(Fn(fn), (_x(2, 9, scale=3.0), _x(3, 5, 4), _x(2, 3, 4, 6, scale=6.0)), target, tmp_path)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    assert "RECIPROCAL" not in ops and "EXP" not in ops and "INTDIV" not in ops


@TARGETS
def test_log_softmax(target, tmp_path):
    """1.01 LSB: results near -80 carry a float32 rounding of ~0.003 int16 steps in the
    float reference itself (the integer result is within 0.5 LSB of float64)."""
    fn = lambda a, b, c: (F.log_softmax(a, -1), F.log_softmax(b, -2), F.log_softmax(c, 3))  # noqa: E731
    _check(Fn(fn), (_x(4, 10), _x(2, 6, 5, scale=0.2), _x(3, 2, 4, 33, scale=8.0)), target, tmp_path, max_lsb=1.01)


@pytest.mark.parametrize("target, short_tables", [(INT8, 3), (INT16, 2)], ids=["int8_table_pairs", "int16_table"])
def test_int8_softmax_short_rows(target, short_tables, tmp_path):
    """int8 softmax over rows whose bound ((N + 1) times an entry's rounding, per
    probability) stays under half an output step takes exps with absolute precision: from
    one int16 TABLE at exact entries where int16 look-ups are allowed (int16 extension;
    Ethos-U85), else from a pair of int8 TABLEs (two signed bytes; Ethos-U55); plus the
    reciprocal's guess. 200-value rows are past the bound and keep the byte-wise look-ups
    (mantissa pair + exponent)."""
    quantizer = TOSAQuantizer(target).set_global(get_symmetric_quantization_config())
    npus = ("ethos-u85-256",) if target == INT16 else ("ethos-u55-128", "ethos-u85-256")
    softmax = Fn(lambda x: torch.softmax(x, -1))
    for row, tables in ((12, short_tables), (200, 4)):
        run = _check(softmax, (_x(6, row, scale=3.0),), target, tmp_path, ethos_u=npus, quantizer=quantizer)
        assert run.result.report["partitions"][0]["tosa_ops"].count("TABLE") == tables


def test_softmax_long_peaked_rows(tmp_path):
    """1000-wide rows dominated by one entry: the many tiny exps still count in the sum."""
    _check(Fn(lambda x: torch.softmax(x, -1)), (_x(3, 1000, scale=4.0),), INT16, tmp_path)


def test_softmax_rows_too_long_stay_on_cpu():
    result = compile_model(Fn(lambda x: torch.softmax(x, -1)), (_x(1, 70000),), INT8, quantize=True)
    (reason,) = _cpu_reasons(result, "aten._softmax.default")
    assert "has 70000 elements; the integer softmax sums at most 65536" in reason


# --- layer / group / RMS / batch norm ------------------------------------------------------------
class _Norms(torch.nn.Module):
    def __init__(self, *norms):
        super().__init__()
        self.norms = torch.nn.ModuleList(norms)
        torch.manual_seed(3)
        with torch.no_grad():
            for parameter in self.parameters():
                parameter.normal_()

    def forward(self, *inputs):
        return tuple(norm(x) for norm, x in zip(self.norms, inputs))


@TARGETS
def test_layer_norm(target, tmp_path):
    """Weight and bias over the last dim and over the last two; no affine; weight only."""
    module = _Norms(
        torch.nn.LayerNorm(8),
        torch.nn.LayerNorm((4, 6)),
        torch.nn.LayerNorm(5, elementwise_affine=False),
        torch.nn.LayerNorm(7, bias=False),
    )
    inputs = (_x(2, 5, 8, scale=3.0), _x(3, 4, 6), _x(5, 2, 5, scale=0.1), _x(7))
    run = _check(module, inputs, target, tmp_path)
    for index in (0, 1):
        _assert_matches_float_model(run, lambda x: module.norms[index](x), inputs[index : index + 1], index)


@TARGETS
def test_layer_norm_positive_weight_goes_into_the_rescale(target, tmp_path):
    """A positive weight along the last axis becomes the final RESCALE's per-channel
    multipliers (one MUL fewer per norm than a weight of mixed signs), with or without a bias."""

    def compiled(sign):
        module = _Norms(torch.nn.LayerNorm(16), torch.nn.LayerNorm(16, bias=False))
        with torch.no_grad():
            for norm in module.norms:
                norm.weight.abs_().add_(0.05)
                norm.weight[3] *= sign
        run = _check(module, (_x(3, 16, scale=2.0), _x(2, 4, 16, seed=1)), target, tmp_path)
        return run.result.report["partitions"][0]["tosa_ops"].count("MUL")

    assert compiled(1.0) == compiled(-1.0) - 2


def test_int8_layer_norm_short_and_long_rows(tmp_path):
    """int8 rows of N <= 128 take the exact statistics T = N sum(x^2) - sum(x)^2 (no
    REDUCE_MAX/MIN); longer rows (here 160) scale by the row's spread first. Both hold
    nearly flat rows (one step of spread, where the eps term dominates) and a large eps."""
    torch.manual_seed(5)
    flat = torch.full((6, 32), 0.7)
    flat[::2, ::5] += 0.02  # a step or less of spread
    module = _Norms(torch.nn.LayerNorm(32), torch.nn.LayerNorm(32, eps=0.5), torch.nn.LayerNorm(160))
    inputs = (torch.cat([flat, _x(6, 32)]), _x(4, 32), torch.cat([torch.full((2, 160), -0.3), _x(3, 160)]))
    inputs[2][0, ::7] += 0.02
    run = _check(module, inputs, INT8, tmp_path)
    ops = run.result.report["partitions"][0]["tosa_ops"]
    # REDUCE_MAX and REDUCE_MIN for the 160-value rows only.
    assert ops.count("REDUCE_MAX") == 1 and ops.count("REDUCE_MIN") == 1


@TARGETS
def test_group_norm(target, tmp_path):
    """2 groups of 3 channels with affine, one group (layer norm over C, H, W), one channel each."""
    module = _Norms(torch.nn.GroupNorm(2, 6), torch.nn.GroupNorm(1, 4), torch.nn.GroupNorm(4, 4, affine=False))
    _check(module, (_x(2, 6, 3, 5), _x(1, 4, 5, 5, scale=0.5), _x(2, 4, 7)), target, tmp_path)


@TARGETS
def test_rms_norm(target, tmp_path):
    module = _Norms(torch.nn.RMSNorm(16), torch.nn.RMSNorm((3, 5), eps=1e-3, elementwise_affine=False))
    _check(module, (_x(3, 16) + 1.0, _x(2, 3, 5, scale=0.3)), target, tmp_path)


def test_norms_split_for_ethos_u55(tmp_path):
    """EthosUQuantizer on U55/U65 splits layer and RMS norms into means, a reciprocal square
    root and products with int8 between them (quantizer/split_composites.py); the lowering
    matches that quantized model within one step, and every step runs on the NPU."""
    module = _Norms(torch.nn.LayerNorm(16), torch.nn.LayerNorm((3, 5), bias=False), torch.nn.RMSNorm(16))
    quantizer = EthosUQuantizer("ethos-u55-128").set_global(get_symmetric_quantization_config())
    inputs = (_x(2, 4, 16), _x(2, 3, 5, scale=0.3), _x(3, 16) + 1.0)
    run = _check(module, inputs, INT8, tmp_path, ethos_u=("ethos-u55-128",), quantizer=quantizer)
    ops = run.result.report["partitions"][0]["aten_ops"]
    assert "aten.rsqrt.default" in ops and not any("norm" in op for op in ops)
    assert not run.result.report["cpu_ops"] or all("quantize" in entry["op"] for entry in run.result.report["cpu_ops"])


def test_batch_norm(tmp_path):
    """int8 only: convert_pt2e re-exports ~100 conv-bn patterns for any graph holding a
    batch norm (~20 s); int16 shares every line of this lowering but the zero point."""
    target = INT8
    module = torch.nn.BatchNorm2d(5).eval()
    torch.manual_seed(4)
    with torch.no_grad():
        module.weight.normal_()
        module.bias.normal_()
        module.running_mean.normal_()
        module.running_var.uniform_(0.05, 3.0)
    inputs = (_x(2, 5, 4, 3),)
    run = _check(module, inputs, target, tmp_path)
    assert run.result.report["partitions"][0]["tosa_ops"] == ["RESCALE", "MUL", "ADD", "RESCALE"]
    _assert_matches_float_model(run, module, inputs)


# --- var / std ----------------------------------------------------------------------------------
@TARGETS
def test_var_std(target, tmp_path):
    """correction 1 (default) and 0, keepdim, several and negative dims, all dims."""
    fn = lambda a, b: (  # noqa: E731
        torch.var(a, 1),
        torch.var(b, (0, 2), correction=0, keepdim=True),
        torch.std(a, -1, keepdim=True),
        torch.std(b, correction=0),
    )
    _check(Fn(fn), (_x(3, 9, scale=5.0), _x(3, 4, 5)), target, tmp_path)


def test_variance_rows_too_long_stay_on_cpu():
    """int16 rows of 20000 values: N x (range of 65534) passes 2**30."""
    result = compile_model(Fn(lambda x: torch.var(x, -1)), (_x(2, 20000),), INT16, quantize=True)
    (reason,) = _cpu_reasons(result, "aten.var.correction")
    assert "rows of 20000 values are too long for the integer statistics" in reason
