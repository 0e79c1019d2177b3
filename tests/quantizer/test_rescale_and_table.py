"""RESCALE and TABLE emission (etarm.lowering.quantized) against the TOSA 1.0 formulas,
torch, and the TOSA reference model."""

import math

import numpy as np
import pytest
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.lowering.quantized import (
    int16_table_values,
    multiplier_and_shift,
    rescale,
    table_values,
)
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.graph import TosaGraph
from etarm.tosa_ir.quant_params import QuantParams
from etarm.tosa_ir.specification import TosaSpecification

SPEC = TosaSpecification.create_from_string("TOSA-1.0+INT+int16")
_NP = {ts.DType.INT8: np.int8, ts.DType.INT16: np.int16, ts.DType.INT32: np.int32}
_RANGE = {ts.DType.INT8: (-128, 127), ts.DType.INT16: (-32768, 32767), ts.DType.INT32: (-(2**31), 2**31 - 1)}


def run_graph(values: np.ndarray, in_dtype, build) -> np.ndarray:
    """One-input graph: ``build(graph, input_tensor) -> output tensor``, run on the reference model."""
    graph = TosaGraph(SPEC)
    placeholder = torch.fx.Graph().placeholder("x")
    x = graph.add_input(placeholder, values.shape, in_dtype)
    graph.mark_output(build(graph, x))
    (out,) = run_tosa(graph.serialize(), [values.astype(_NP[in_dtype])])
    return out


def spec_rescale(values, multiplier, shift, input_zp, output_zp, out_dtype, double_round=False) -> np.ndarray:
    """TOSA 1.0 RESCALE with apply_scale_32, element by element in Python integers."""
    low, high = _RANGE[out_dtype]
    result = []
    for v, m, s in np.broadcast(np.asarray(values, dtype=np.int64), multiplier, shift):
        value = int(v) - input_zp
        rounding = 1 << (int(s) - 1)
        if double_round and s > 31:
            rounding += (1 << 30) if value >= 0 else -(1 << 30)
        scaled = (value * int(m) + rounding) >> int(s)
        result.append(min(max(scaled + output_zp, low), high))
    return np.array(result, dtype=np.int64).reshape(np.shape(values))


def test_multiplier_and_shift_of_one():
    assert multiplier_and_shift(1.0) == (1 << 30, 30)
    assert multiplier_and_shift(1.0, scale32=False) == (1 << 14, 14)


@pytest.mark.parametrize("scale32", [True, False])
def test_multiplier_and_shift_accuracy(scale32):
    bits = 31 if scale32 else 15
    rng = np.random.default_rng(0)
    for scale in np.exp2(rng.uniform(-30, 10, 200)):
        multiplier, shift = multiplier_and_shift(float(scale), scale32)
        assert 1 << (bits - 1) <= multiplier < 1 << bits and 2 <= shift <= 62
        assert abs(multiplier * 2.0**-shift / scale - 1) <= 2.0 ** -(bits - 1)


def test_multiplier_and_shift_limits():
    multiplier, shift = multiplier_and_shift(2.0**-40)
    assert shift == 62 and multiplier == 1 << 22  # precision traded for the shift limit
    for bad in (0.0, -1.0, math.inf, 2.0**31):
        with pytest.raises(EtarmError):
            multiplier_and_shift(bad)


@pytest.mark.parametrize(
    "scale, input_zp, output_zp", [(0.37, 5, -20), (1.0, -128, 127), (3.1, 0, 0), (2.0**-7, 100, -3)]
)
def test_rescale_int8_matches_spec_and_real_arithmetic(scale, input_zp, output_zp):
    values = np.arange(-128, 128, dtype=np.int64)
    out = run_graph(values, ts.DType.INT8, lambda g, x: rescale(g, x, scale, ts.DType.INT8, input_zp=input_zp, output_zp=output_zp))
    multiplier, shift = multiplier_and_shift(scale)
    np.testing.assert_array_equal(out, spec_rescale(values, multiplier, shift, input_zp, output_zp, ts.DType.INT8))
    real = np.clip(np.round((values - input_zp) * scale) + output_zp, -128, 127)
    assert np.abs(out - real).max() <= 1  # round-half-up vs half-even only


def test_rescale_int32_double_round_differs_only_by_one():
    values = np.arange(-(1 << 20), 1 << 20, 4099, dtype=np.int64)
    scale = 2.0**-33 * 1.3  # shift > 31: the second rounding applies
    single = run_graph(values, ts.DType.INT32, lambda g, x: rescale(g, x, scale, ts.DType.INT32))
    double = run_graph(values, ts.DType.INT32, lambda g, x: rescale(g, x, scale, ts.DType.INT32, double_round=True))
    multiplier, shift = multiplier_and_shift(scale)
    assert shift > 31
    np.testing.assert_array_equal(single, spec_rescale(values, multiplier, shift, 0, 0, ts.DType.INT32))
    np.testing.assert_array_equal(double, spec_rescale(values, multiplier, shift, 0, 0, ts.DType.INT32, True))
    assert np.abs(single - double).max() <= 1


def test_rescale_per_channel_on_last_dimension():
    scales = [0.5, 0.01, 3.0]
    values = np.arange(-60, 60, dtype=np.int64).reshape(2, 20, 3) * 1000
    out = run_graph(values, ts.DType.INT32, lambda g, x: rescale(g, x, scales, ts.DType.INT8, output_zp=7))
    pairs = [multiplier_and_shift(s) for s in scales]
    expected = spec_rescale(values, [m for m, _ in pairs], [s for _, s in pairs], 0, 7, ts.DType.INT8)
    np.testing.assert_array_equal(out, expected)


def test_rescale_int16_symmetric():
    values = np.arange(-32768, 32768, 97, dtype=np.int64)
    out = run_graph(values, ts.DType.INT16, lambda g, x: rescale(g, x, 0.7, ts.DType.INT16))
    multiplier, shift = multiplier_and_shift(0.7)
    np.testing.assert_array_equal(out, spec_rescale(values, multiplier, shift, 0, 0, ts.DType.INT16))


def test_rescale_refuses_what_tosa_forbids():
    graph = TosaGraph(SPEC)
    x8 = graph.temp((4,), ts.DType.INT8)
    x16 = graph.temp((4,), ts.DType.INT16)
    with pytest.raises(EtarmError, match="zero point"):
        rescale(graph, x16, 0.5, ts.DType.INT16, input_zp=3)
    with pytest.raises(EtarmError, match="per-channel"):
        rescale(graph, x8, [0.5, 0.25], ts.DType.INT32)
    with pytest.raises(EtarmError, match="overflows"):
        rescale(graph, x8, 2.0**25, ts.DType.INT32)
    with pytest.raises(EtarmError, match="DOUBLE_ROUND"):
        rescale(graph, x8, 0.5, ts.DType.INT32, scale32=False, double_round=True)


INT8_IN = QuantParams(0.05, 10, -128, 127, torch.int8)
INT8_OUT = QuantParams(0.02, -30, -128, 127, torch.int8)


@pytest.mark.parametrize("fn", [torch.sigmoid, torch.exp, torch.nn.functional.gelu, torch.tanh], ids=["sigmoid", "exp", "gelu", "tanh"])
def test_int8_table_runs_quantize_fn_dequantize(fn):
    table = table_values(fn, INT8_IN, INT8_OUT)
    values = np.arange(-128, 128, dtype=np.int64)
    expected = INT8_OUT.quantize(fn(INT8_IN.dequantize(torch.tensor(values, dtype=torch.int8)))).numpy()
    np.testing.assert_array_equal(table, expected)

    def build(graph, x):
        out = graph.temp(x.shape, ts.DType.INT8)
        graph.op(ts.Op.TABLE, [x, graph.const(table, ts.DType.INT8)], [out])
        return out

    np.testing.assert_array_equal(run_graph(values, ts.DType.INT8, build), expected)


@pytest.mark.parametrize("fn, out_range", [(torch.sigmoid, 1.0), (torch.tanh, 1.0)], ids=["sigmoid", "tanh"])
def test_int16_interpolated_table_within_two_steps(fn, out_range):
    source = QuantParams(6.0 / 32767, 0, -32767, 32767, torch.int16)
    target = QuantParams(out_range / 32767, 0, -32767, 32767, torch.int16)
    table = int16_table_values(fn, source, target)
    assert table.shape == (513,)

    def build(graph, x):
        interpolated = graph.emit(ts.Op.TABLE, [x, graph.const(table, ts.DType.INT16)], x.shape, ts.DType.INT32)
        return rescale(graph, interpolated, 1 / 128, ts.DType.INT16)

    values = np.arange(-32767, 32768, dtype=np.int64)
    out = run_graph(values, ts.DType.INT16, build).astype(np.int64)
    expected = target.quantize(fn(source.dequantize(torch.tensor(values, dtype=torch.int16)))).numpy()
    assert np.abs(out - expected).max() <= 2
