"""Integer (TOSA INT profile) building blocks for node visitors.

After passes/fold_quantize_nodes.py a quantized node reads and writes int8/int16
tensors whose parameters sit in ``node.meta`` (etarm.tosa_ir.quant_params). A visitor
extends to INT by branching on ``is_quantized(node)`` and composing these helpers:

- ``rescale``: TOSA 1.0 RESCALE (multiplier/shift/zero points are input tensors).
- ``int32_operand`` / ``additive_operands``: an operand as int32 with its zero point
  removed, optionally brought to a common scale (ADD/SUB need equal scales).
- ``write_int32_result``: RESCALE an int32 result into the node's quantized output.
- ``table`` / ``table_values``: TABLE for any float function (exact for int8).
- ``clamp_in_output_domain``: CLAMP bounds given in real values.
- ``requantize``: an integer tensor re-expressed with other parameters.
- ``add_or_sub`` / ``multiply``: whole quantized ADD/SUB/MUL lowerings.
- ``TableLowering``: mixin giving a unary float visitor a TABLE lowering for INT.
- ``FloatAndQuantizedVisitor``: base of a visitor whose INT lowering is its own, whole.

Extending a visitor: add "INT" to ``profiles``, set ``handles_qparams = True``, let
``check`` accept INT-only specs (``is_int_spec``: the partitioner already checked the
quantization parameters and integer types), and branch in ``define``::

    if is_quantized(node):
        add_or_sub(graph, node, ts.Op.ADD)
        return

Data-movement visitors need nothing: with ``handles_qparams`` False the partitioner
only delegates them where their input and output share parameters, so the integer
values move unchanged.
"""

from __future__ import annotations

import math
import numbers
from typing import Callable, Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.lowering.elementwise import output_rank
from etarm.lowering.quantized_support import uses_quantized_region
from etarm.lowering.registry import NodeVisitor
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import QuantParams, input_qparams, is_quantized, output_qparams  # noqa: F401

# Bits an int8/int16 operand is shifted left before ADD/SUB so the common-scale
# rescale loses (almost) nothing: |q - zp| < 2**9 (int8) or 2**16 (int16), and two
# such values times 2**(L-1) still fit int32.
ADDITIVE_LEFT_SHIFT = {ts.DType.INT8: 20, ts.DType.INT16: 15}
# Value range of each input type RESCALE checks its scale against (int32: unknown).
_INPUT_RANGE = {ts.DType.INT8: (-128, 127), ts.DType.INT16: (-32768, 32767)}


def is_int_spec(spec) -> bool:
    """INT-only specifications: float ops reach define() quantized, their parameters
    already checked by the partitioner (so ``check`` need not look at float dtypes)."""
    return uses_quantized_region(spec)


# --- scale -> multiplier/shift ----------------------------------------------------------
def multiplier_and_shift(scale: float, scale32: bool = True) -> tuple[int, int]:
    """(multiplier, shift) with ``multiplier * 2**-shift ~= scale`` for TOSA RESCALE.

    The multiplier is normalised to [2**30, 2**31) (scale32) or [2**14, 2**15); the
    spec allows shifts 2..62, so scales below ~2**-32 lose multiplier bits and scales
    of 2**29 (2**13 for 16-bit) or more cannot be expressed.
    """
    if not math.isfinite(scale) or scale <= 0:
        raise EtarmError(f"cannot rescale by {scale}: the scale must be positive and finite")
    bits = 31 if scale32 else 15
    mantissa, exponent = math.frexp(scale)  # scale = mantissa * 2**exponent, 0.5 <= mantissa < 1
    multiplier = round(mantissa * (1 << bits))
    if multiplier == 1 << bits:  # mantissa rounded up to 1.0
        multiplier >>= 1
        exponent += 1
    shift = bits - exponent
    if shift > 62:
        multiplier = round(multiplier / (1 << (shift - 62)))
        shift = 62
    if shift < 2:
        raise EtarmError(f"cannot rescale by {scale}: too large for a TOSA RESCALE")
    return int(multiplier), int(shift)


# --- RESCALE ---------------------------------------------------------------------------
def rescale(
    graph: TosaGraph,
    tensor: TosaTensor,
    scale: float | Sequence[float],
    dtype,
    *,
    input_zp: int = 0,
    output_zp: int = 0,
    double_round: bool = False,
    scale32: bool = True,
    out: TosaTensor | None = None,
) -> TosaTensor:
    """``out = clamp(apply_scale(tensor - input_zp, scale) + output_zp)`` in ``dtype``.

    A sequence of scales rescales per channel along the LAST dimension (as the spec
    does). ``double_round`` selects DOUBLE_ROUND (TFLite's two-stage rounding, only
    with scale32); the default SINGLE_ROUND rounds the exact product once, which is
    what comparing against torch's float quantize/dequantize wants.
    TOSA allows non-zero zero points only on int8 (signed) tensors.
    """
    scales = [float(s) for s in np.atleast_1d(np.asarray(scale, dtype=np.float64))]
    per_channel = len(scales) > 1
    if per_channel and (tensor.rank == 0 or tensor.shape[-1] != len(scales)):
        raise EtarmError(f"per-channel RESCALE of shape {tensor.shape} needs {tensor.shape[-1:]} scales, got {len(scales)}")
    if double_round and not scale32:
        raise EtarmError("DOUBLE_ROUND rescaling needs 32-bit multipliers (scale32)")
    for zp, zp_dtype, what in ((input_zp, tensor.dtype, "input"), (output_zp, dtype, "output")):
        if zp != 0 and zp_dtype != ts.DType.INT8:
            raise EtarmError(f"RESCALE {what} zero point {zp} on a {zp_dtype.name} tensor: only int8 may have one")
    pairs = [multiplier_and_shift(s, scale32) for s in scales]
    _check_value_range(tensor.dtype, input_zp, pairs)
    multipliers = graph.const([m for m, _ in pairs], ts.DType.INT32 if scale32 else ts.DType.INT16, stem="multiplier")
    shifts = graph.const([s for _, s in pairs], ts.DType.INT8, stem="shift")
    input_zp_tensor = graph.const([input_zp], tensor.dtype, stem="input_zp")
    output_zp_tensor = graph.const([output_zp], dtype, stem="output_zp")
    if out is None:
        out = graph.temp(tensor.shape, dtype, stem="rescaled")
    rounding = ts.RoundingMode.DOUBLE_ROUND if double_round else ts.RoundingMode.SINGLE_ROUND
    graph.op(
        ts.Op.RESCALE,
        [tensor, multipliers, shifts, input_zp_tensor, output_zp_tensor],
        [out],
        scale32,
        rounding,
        per_channel,
        False,  # input_unsigned
        False,  # output_unsigned
    )
    return out


def _check_value_range(dtype, input_zp: int, pairs: list[tuple[int, int]]) -> None:
    """apply_scale_32 requires -2**(shift-1) <= q - zp < 2**(shift-1): refuse scales that could break it."""
    if dtype not in _INPUT_RANGE:
        return
    low, high = (v - input_zp for v in _INPUT_RANGE[dtype])
    for _, shift in pairs:
        limit = 1 << (shift - 1)
        if low < -limit or high >= limit:
            raise EtarmError(f"RESCALE of a {dtype.name} tensor with shift {shift} overflows TOSA's 32-bit scaling")


# --- operands and results of quantized nodes ------------------------------------------------
def int32_operand(graph: TosaGraph, node: torch.fx.Node, index: int, factor: float = 1.0) -> TosaTensor:
    """Argument ``index`` as int32 holding ``(q - zero_point) * factor``, at the output's rank.

    A Python scalar argument becomes the int32 constant ``round(value * factor)``
    (``factor`` then converts real values to int32 units).
    """
    arg = node.args[index]
    rank = output_rank(node)
    if isinstance(arg, numbers.Number):
        return graph.const([round(float(arg) * factor)], ts.DType.INT32, shape=(1,) * rank, stem="scalar")
    qparams = input_qparams(node, index)
    tensor = graph.to_rank(graph.value(arg), rank)
    return rescale(graph, tensor, factor, ts.DType.INT32, input_zp=int(qparams.zero_point))


def additive_operands(
    graph: TosaGraph, node: torch.fx.Node, multipliers: Sequence[float]
) -> tuple[list[TosaTensor], float]:
    """Arguments 0..n-1 as int32 on one common scale, each times ``abs(multipliers[i])``.

    Returns the tensors and ``unit``, the real value of one int32 step. Following the
    usual integer add: operands are brought to ``2 * max(scale) / 2**L``, L = 20 for
    int8 and 15 for int16, so the rescale error is far below one output step.
    """
    scales = []
    for index, multiplier in enumerate(multipliers):
        if isinstance(node.args[index], torch.fx.Node):
            scales.append(float(input_qparams(node, index).scale) * abs(multiplier))
    dtype = tosa_dtype(output_qparams(node).dtype)
    left_shift = ADDITIVE_LEFT_SHIFT.get(dtype)
    if left_shift is None:
        raise EtarmError(f"{node.name}: quantized add/sub of {dtype.name} tensors is not supported")
    unit = 2 * max(scales) / (1 << left_shift)
    operands = []
    for index, multiplier in enumerate(multipliers):
        arg = node.args[index]
        if isinstance(arg, torch.fx.Node):
            factor = float(input_qparams(node, index).scale) * abs(multiplier) / unit
        else:
            factor = abs(multiplier) / unit  # real value -> int32 units
        operands.append(int32_operand(graph, node, index, factor))
    return operands, unit


def _operand_shape(tensors: Sequence[TosaTensor]) -> tuple[int, ...]:
    return tuple(max(dims) for dims in zip(*(t.shape for t in tensors)))


def add_or_sub(graph: TosaGraph, node: torch.fx.Node, op, rhs_multiplier: float = 1.0) -> TosaTensor:
    """Quantized ``lhs (op) |rhs_multiplier| * rhs``, op ADD or SUB, into ``node``'s output."""
    operands, unit = additive_operands(graph, node, [1.0, rhs_multiplier])
    total = graph.emit(op, operands, _operand_shape(operands), ts.DType.INT32)
    return write_int32_result(graph, node, total, unit)


def scaled_copy(graph: TosaGraph, node: torch.fx.Node, index: int, factor: float) -> TosaTensor:
    """``node``'s output = argument ``index`` times a positive ``factor``: one RESCALE."""
    source, target = input_qparams(node, index), output_qparams(node)
    return requantize(graph, graph.value(node.args[index]), source, target, out=graph.out(node), factor=factor)


def multiply(graph: TosaGraph, node: torch.fx.Node) -> TosaTensor:
    """Quantized ``lhs * rhs`` into ``node``'s output: an int32 MUL of the centred operands.

    A Python-number operand c contributes sign(c) to the product and |c| to the scale.
    A positive one-value constant times a tensor of the output's shape is one RESCALE,
    the same single rounding without the int32 round trip.
    """
    shape = tuple(node.meta["val"].shape)
    for index in (0, 1):
        value, other = one_value_constant(graph, node, index), node.args[1 - index]
        if value is not None and float(value) > 0 and isinstance(other, torch.fx.Node) and graph.value(other).shape == shape:
            return scaled_copy(graph, node, 1 - index, float(value))
    unit = 1.0
    operands = []
    for index in (0, 1):
        arg = node.args[index]
        if isinstance(arg, torch.fx.Node):
            unit *= float(input_qparams(node, index).scale)
            operands.append(int32_operand(graph, node, index))
        else:
            value = float(arg)
            unit *= abs(value) or 1.0
            operands.append(int32_operand(graph, node, index, 1.0 / (abs(value) or 1.0)))
    shift = graph.const([0], ts.DType.INT8, stem="shift")
    product = graph.emit(ts.Op.MUL, [*operands, shift], _operand_shape(operands), ts.DType.INT32)
    return write_int32_result(graph, node, product, unit)


def is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def one_value_constant(graph: TosaGraph, node: torch.fx.Node, index: int):
    """Argument ``index`` when it is a number, or as a 0-d float tensor when it is a constant
    tensor of one value (e.g. a number the quantizer lifted); else None."""
    arg = node.args[index]
    if is_number(arg):
        return arg
    if not isinstance(arg, torch.fx.Node) or not graph.has_value(arg):
        return None
    data = graph.constant_data(graph.value(arg))
    if data is None or data.size != 1:
        return None
    integers = torch.from_numpy(np.array(data).reshape(()))
    return input_qparams(node, index).dequantize(integers)


def write_int32_result(graph: TosaGraph, node: torch.fx.Node, value: TosaTensor, unit: float | Sequence[float]) -> TosaTensor:
    """RESCALE an int32 ``value`` (steps of ``unit`` real) into ``node``'s quantized output."""
    qparams = output_qparams(node)
    scales = np.atleast_1d(np.asarray(unit, dtype=np.float64)) / float(qparams.scale)
    scale = scales if scales.size > 1 else float(scales[0])
    shape = tuple(node.meta["val"].shape)
    if value.shape != shape:  # e.g. a rank-0 result computed at rank 1
        value = graph.reshape(value, shape)
    return rescale(
        graph, value, scale, tosa_dtype(qparams.dtype), output_zp=int(qparams.zero_point), out=graph.out(node)
    )


def requantize(
    graph: TosaGraph,
    tensor: TosaTensor,
    source: QuantParams,
    target: QuantParams,
    out: TosaTensor | None = None,
    factor: float = 1.0,
) -> TosaTensor:
    """``tensor`` (quantized with ``source``) times a positive ``factor``, re-expressed with
    ``target``'s parameters."""
    if factor == 1.0 and source.same_values(target) and out is None:
        return tensor
    return rescale(
        graph,
        tensor,
        float(source.scale) * factor / float(target.scale),
        tosa_dtype(target.dtype),
        input_zp=int(source.zero_point),
        output_zp=int(target.zero_point),
        out=out,
    )


# --- CLAMP --------------------------------------------------------------------------------
def quantized_bounds(qparams: QuantParams, low: float | None, high: float | None) -> tuple[int, int]:
    """Integer bounds equivalent to clamping the real values to [low, high].

    Quantizing is monotonic, so ``q(clamp(x, lo, hi)) == clamp(q(x), q(lo), q(hi))``.
    """
    q_low, q_high = qparams.qmin, qparams.qmax
    if low is not None:
        q_low = max(q_low, int(qparams.quantize(torch.tensor([float(low)])).item()))
    if high is not None:
        q_high = min(q_high, int(qparams.quantize(torch.tensor([float(high)])).item()))
    return q_low, q_high


def clamp(graph: TosaGraph, tensor: TosaTensor, low: int, high: int, out: TosaTensor) -> TosaTensor:
    """TOSA CLAMP of an integer tensor (the bounds are encoded in the tensor's type)."""
    np_dtype = {ts.DType.INT8: np.int8, ts.DType.INT16: np.int16, ts.DType.INT32: np.int32}[tensor.dtype]
    as_bytes = lambda v: list(np.array([v], dtype=np_dtype).tobytes())  # noqa: E731
    graph.op(ts.Op.CLAMP, [tensor], [out], as_bytes(low), as_bytes(high), ts.NanPropagationMode.PROPAGATE)
    return out


def clamp_in_output_domain(graph: TosaGraph, node: torch.fx.Node, low: float | None, high: float | None) -> TosaTensor:
    """``node``'s output = clamp(argument 0, low, high), all quantized.

    The input is requantized to the output's parameters first when they differ
    (a fused activation shares them, so then it is a single CLAMP).
    """
    source, target = input_qparams(node, 0), output_qparams(node)
    q_low, q_high = quantized_bounds(target, low, high)
    if q_low > q_high:  # the whole range lies outside [low, high]: every output is one bound
        q_low = q_high = min(max(q_low, target.qmin), target.qmax)
    tensor = graph.value(node.args[0])
    if q_low <= target.qmin and q_high >= target.qmax:
        # The bounds cut nothing off (e.g. relu fused into an op whose output range starts at 0).
        if source.same_values(target):
            graph.bind(node, tensor)
            return tensor
        return requantize(graph, tensor, source, target, out=graph.out(node))
    value = requantize(graph, tensor, source, target)
    return clamp(graph, value, q_low, q_high, graph.out(node))


# --- TABLE --------------------------------------------------------------------------------
Function = Callable[[torch.Tensor], torch.Tensor]

# TOSA TABLE for int16 interpolates 513 entries: 128 input steps per entry.
_INT16_TABLE_STEP = 128
_INT16_TABLE_FRACTION_BITS = 7


def table_values(fn: Function, source: QuantParams, target: QuantParams) -> np.ndarray:
    """The 256-entry int8 TABLE for ``fn`` from ``source`` to ``target`` parameters.

    Entries use torch's own quantize/dequantize, so the lookup reproduces
    ``quantize(fn(dequantize(q)))`` exactly.
    """
    if source.dtype != torch.int8 or target.dtype != torch.int8:
        raise EtarmError("an int8 TABLE needs int8 input and output")
    inputs = torch.arange(-128, 128, dtype=torch.int32)
    real = (inputs - int(source.zero_point)).to(torch.float32) * float(source.scale)
    with torch.no_grad():
        values = fn(real)
    return target.quantize(values).numpy().astype(np.int8)


def int16_table_values(fn: Function, source: QuantParams, target: QuantParams) -> np.ndarray:
    """The 513-entry int16 TABLE whose interpolation approximates ``fn``.

    Entry i is ``fn`` at input ``-32768 + 128 i`` in ``target``'s units (zero point 0),
    nudged to halve the interpolation error of curved functions; the TABLE's int32
    result has 7 fractional bits (see ``table``).
    """
    if source.dtype != torch.int16 or target.dtype != torch.int16:
        raise EtarmError("an int16 TABLE needs int16 input and output")
    step = _INT16_TABLE_STEP * float(source.scale)
    points = torch.arange(-32768, 32769, _INT16_TABLE_STEP, dtype=torch.float64) * float(source.scale)
    with torch.no_grad():
        values = fn(points.to(torch.float32)).to(torch.float64)
        middles = fn((points[:-1] + step / 2).to(torch.float32)).to(torch.float64)
    # Linear interpolation misses a curved fn most at segment middles: shift each entry by
    # half the miss of its two segments, splitting the error between middles and ends.
    miss = middles - (values[:-1] + values[1:]) / 2
    correction = torch.zeros_like(values)
    correction[:-1] += miss / 4
    correction[1:] += miss / 4
    correction[0] *= 2
    correction[-1] *= 2
    entries = torch.round((values + correction) / float(target.scale)).clamp(target.qmin, target.qmax)
    return entries.numpy().astype(np.int16)


def table(graph: TosaGraph, node: torch.fx.Node, fn: Function) -> TosaTensor:
    """``node``'s output = ``fn(argument 0)`` through a TOSA TABLE.

    int8: one 256-entry lookup, bit-exact with ``quantize(fn(dequantize(x)))``.
    int16: the 513-entry interpolated lookup gives int32 with 7 fractional bits,
    rescaled into the output; error within a few output steps for smooth ``fn``.
    """
    source, target = input_qparams(node, 0), output_qparams(node)
    tensor = graph.value(node.args[0])
    if source.dtype == torch.int8:
        values = graph.const(table_values(fn, source, target), ts.DType.INT8, stem="table")
        out = graph.out(node)
        graph.op(ts.Op.TABLE, [tensor, values], [out])
        return out
    if source.dtype == torch.int16:
        if int(source.zero_point) != 0 or int(target.zero_point) != 0:
            raise EtarmError(f"{node.name}: int16 TABLE needs symmetric (zero point 0) quantization")
        values = graph.const(int16_table_values(fn, source, target), ts.DType.INT16, stem="table")
        interpolated = graph.emit(ts.Op.TABLE, [tensor, values], tensor.shape, ts.DType.INT32)
        return rescale(
            graph, interpolated, 1.0 / (1 << _INT16_TABLE_FRACTION_BITS), ts.DType.INT16, out=graph.out(node)
        )
    raise EtarmError(f"{node.name}: TABLE of {source.dtype} is not supported")


class QuantizedLowering:
    """Mixin giving a float visitor its INT lowering: ``define_quantized`` for quantized nodes.

    List it before the FP base class and add "INT" to ``profiles``. Under an INT-only spec the
    partitioner has checked the quantization parameters (``is_int_spec``); otherwise the FP base
    class checks and lowers.
    """

    handles_qparams = True

    def check(self, node, spec):
        if is_int_spec(spec):
            return None
        return super().check(node, spec)

    def define(self, node, graph):
        if is_quantized(node):
            self.define_quantized(node, graph)
            return
        super().define(node, graph)

    def define_quantized(self, node, graph):
        raise NotImplementedError


class TableLowering(QuantizedLowering):
    """Mixin giving a unary float visitor its INT lowering: a TABLE of ``table_function``.

    List it before the FP base class, add "INT" to ``profiles`` and name the function::

        class SigmoidVisitor(TableLowering, FloatUnaryVisitor):
            profiles = frozenset({"FP", "INT"})
            table_function = staticmethod(torch.sigmoid)
    """

    table_function: Callable[[torch.Tensor], torch.Tensor]

    def define_quantized(self, node, graph):
        table(graph, node, self.table_function)


class FloatAndQuantizedVisitor(NodeVisitor):
    """A visitor with a float lowering and a separate, whole INT lowering of quantized nodes.

    ``float_reason`` applies under every spec (a quantized node must first be a float op the
    visitor takes); an INT spec adds ``quantized_reason``, the INT lowering's own limits.
    Quantized nodes are lowered by ``define_quantized``, the others by ``define_float``.
    """

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        reason = self.float_reason(node, spec)
        if reason is None and is_int_spec(spec):
            reason = self.quantized_reason(node, spec)
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            self.define_quantized(node, graph)
        else:
            self.define_float(node, graph)

    def float_reason(self, node: torch.fx.Node, spec) -> str | None:
        raise NotImplementedError

    def quantized_reason(self, node: torch.fx.Node, spec) -> str | None:
        """None: by default the INT lowering takes every node the float checks pass."""
        return None

    def define_float(self, node: torch.fx.Node, graph: TosaGraph) -> None:
        raise NotImplementedError

    def define_quantized(self, node: torch.fx.Node, graph: TosaGraph) -> None:
        raise NotImplementedError
