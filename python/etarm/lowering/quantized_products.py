"""Quantized (INT profile) convolutions and matrix products: integer accumulation, one RESCALE.

TOSA's CONV2D / CONV3D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D and MATMUL multiply integers
into a wide accumulator: int8 x int8 into int32, and (int16 extension) int16 activations x
int8 weights, or int16 x int16 for MATMUL, into int48. One accumulator step is worth
``input scale * weight scale[c]`` (per output channel c for per-channel weights); the bias
is folded in at that scale, and one RESCALE writes the node's quantized output. A fused
relu/clamp gives the node its own output parameters (passes/share_qparams.py), so the
RESCALE's saturation is all the activation costs where its bounds are the output range.

The ``*_reason`` checks run at partition time, before FoldQuantizeNodes, when each
operand is still the output of a dequantize node whose arguments hold its parameters.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.lowering.quantized import rescale
from etarm.op_names import op_name
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.mapping import tosa_dtype
from etarm.tosa_ir.quant_params import input_qparams, is_dequantize, output_qparams, qdq_dtype

_ACCUMULATORS = {ts.DType.INT8: ts.DType.INT32, ts.DType.INT16: ts.DType.INT48}
_ACCUMULATOR_RANGE = {ts.DType.INT32: 2**31, ts.DType.INT48: 2**47}
_DTYPE_NAMES = {torch.int8: "int8", torch.int16: "int16", torch.int32: "int32"}


def accumulator_dtype(dtype) -> ts.DType:
    """TOSA's accumulator for integer inputs of ``dtype`` (int8 -> int32, int16 -> int48)."""
    try:
        return _ACCUMULATORS[dtype]
    except KeyError:
        raise EtarmError(f"no integer accumulator for {dtype.name} inputs (int8 and int16 only)") from None


# --- partition-time checks ------------------------------------------------------------------


def _name(dtype: torch.dtype) -> str:
    return _DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


def operand_reason(
    arg,
    name: str,
    dtypes: Sequence[torch.dtype],
    *,
    constant: bool = False,
    symmetric: bool = False,
    channel_axis: int | None = None,
) -> str | None:
    """Why the quantized operand ``arg`` (a dequantize node's output) cannot feed a product.

    ``dtypes``: allowed integer types; ``constant``: must be a compile-time constant;
    ``symmetric``: zero point 0 required; ``channel_axis``: the only axis per-channel
    parameters may use (None: per-tensor only). int16 operands always need zero point 0
    (TOSA allows non-zero zero points on int8 only). Operands reached along a direct
    edge (no dequantize) take checked parameters from elsewhere: nothing to say here.
    """
    if not is_dequantize(arg):
        return None
    dtype = qdq_dtype(arg)
    if dtype not in dtypes:
        allowed = " or ".join(_name(d) for d in dtypes)
        return f"{name} is quantized to {_name(dtype)}; TOSA takes {allowed} here"
    source = arg.args[0]
    if constant and not (isinstance(source, torch.fx.Node) and source.op == "placeholder"):
        return f"{name} is computed at run time; quantized lowering needs it constant"
    if op_name(arg.target).endswith("per_channel.default"):
        axis = int(arg.args[3])
        rank = len(source.meta["val"].shape) if isinstance(source, torch.fx.Node) and "val" in source.meta else 0
        axis = axis + rank if axis < 0 else axis
        if channel_axis is None or axis != channel_axis:
            where = "per-tensor parameters"
            if channel_axis is not None:
                where = f"per-channel parameters along dim {channel_axis}"
            return f"{name} is quantized per channel along dim {axis}; TOSA needs {where}"
        return None  # per-channel zero points are tensors: checked when lowering
    zero_point = int(arg.args[2])
    if zero_point != 0 and (symmetric or dtype != torch.int8):
        return f"{name} has zero point {zero_point}; TOSA needs 0 here (symmetric quantization)"
    return None


def same_dtype_reason(pairs: Sequence[tuple[str, object]]) -> str | None:
    """MATMUL multiplies operands of one integer type (int8 x int8 or int16 x int16)."""
    dtypes = {name: qdq_dtype(arg) for name, arg in pairs if is_dequantize(arg)}
    if len(set(dtypes.values())) > 1:
        listed = ", ".join(f"{name} {_name(d)}" for name, d in dtypes.items())
        return f"operands are quantized to different types ({listed}); TOSA MATMUL needs one"
    return None


# --- lowering ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Accumulation:
    """How a quantized product accumulates: zero points, step value, accumulator type."""

    input_zp: int
    weight_zp: int
    units: np.ndarray  # real value of one accumulator step, per output channel (or one)
    dtype: ts.DType  # INT32 or INT48

    def zero_points(self, graph: TosaGraph, input_dtype, weight_dtype) -> tuple[TosaTensor, TosaTensor]:
        """The input_zp / weight_zp (A_zp / B_zp) operand tensors."""
        return (
            graph.const([self.input_zp], input_dtype, shape=(1,), stem="input_zp"),
            graph.const([self.weight_zp], weight_dtype, shape=(1,), stem="weight_zp"),
        )


def accumulation(node: torch.fx.Node, input_index: int, weight_index: int, channel_repeats: int = 1) -> Accumulation:
    """The accumulation of ``node`` multiplying argument ``input_index`` by ``weight_index``.

    Per-channel weight scales repeat ``channel_repeats`` times along the output channels
    (grouped transposed convolutions: the weight's channel axis holds one group's outputs).
    """
    source, weight = input_qparams(node, input_index), input_qparams(node, weight_index)
    if weight.per_channel and np.any(weight.zero_points != 0):
        raise EtarmError(f"{node.name}: per-channel weights need zero points 0 (symmetric quantization)")
    units = float(source.scale) * weight.scales
    if weight.per_channel and channel_repeats > 1:
        units = np.tile(units, channel_repeats)
    dtype = accumulator_dtype(tosa_dtype(source.dtype))
    return Accumulation(int(source.zero_point), int(weight.zero_points[0]), units, dtype)


def bias(graph: TosaGraph, node: torch.fx.Node, index: int, acc: Accumulation, channels: int) -> TosaTensor:
    """Argument ``index`` (a constant quantized bias, or None: zeros) in accumulator steps."""
    arg = node.args[index] if len(node.args) > index else None
    if arg is None:
        return graph.const(np.zeros(channels, dtype=np.int64), acc.dtype, shape=(channels,), stem="bias")
    data = graph.constant_data(graph.value(arg))
    if data is None:
        raise EtarmError(f"{node.name}: a quantized bias must be a constant")
    qparams = input_qparams(node, index)
    real = (data.astype(np.float64) - qparams.zero_points) * qparams.scales
    units = np.broadcast_to(acc.units, (channels,))
    steps = np.rint(real / units)
    if np.any(np.abs(steps) >= _ACCUMULATOR_RANGE[acc.dtype]):
        raise EtarmError(f"{node.name}: the bias does not fit the {acc.dtype.name} accumulator")
    return graph.const(steps.astype(np.int64), acc.dtype, shape=(channels,), stem="bias")


def write_output(
    graph: TosaGraph,
    node: torch.fx.Node,
    value: TosaTensor,
    acc: Accumulation,
    out: TosaTensor | None = None,
    first_channel: int = 0,
) -> TosaTensor:
    """RESCALE the accumulator ``value`` into ``node``'s quantized output (per channel along
    the last dimension when the steps differ per channel; ``value`` may hold the output
    channels from ``first_channel`` on); ``out``: default a new tensor.

    TOSA rescales int48 with 16-bit multipliers only (scale32 is an error for int48 input).
    """
    qparams = output_qparams(node)
    units = acc.units
    if units.size > 1:
        units = units[first_channel : first_channel + value.shape[-1]]
    scales = units / float(qparams.scale)
    scale = scales if scales.size > 1 else float(scales[0])
    return rescale(
        graph,
        value,
        scale,
        tosa_dtype(qparams.dtype),
        output_zp=int(qparams.zero_point),
        scale32=acc.dtype != ts.DType.INT48,
        out=out,
    )


def write_node_output(graph: TosaGraph, node: torch.fx.Node, value: TosaTensor, acc: Accumulation) -> TosaTensor:
    """``write_output`` into ``node``'s own result tensor, reshaping after the RESCALE (on the
    narrow type: TOSA data movement takes no int48) where the shapes differ."""
    out = graph.out(node)
    if value.shape == out.shape:
        return write_output(graph, node, value, acc, out=out)
    scaled = write_output(graph, node, value, acc)
    graph.reshape_into(scaled, out)
    return out
