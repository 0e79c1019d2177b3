"""aten._native_batch_norm_legit_no_training (inference batch norm): x * scale + shift per channel.

scale = weight * rsqrt(running_var + eps) and shift = bias - running_mean * scale, the same
per-channel terms torch's CPU kernel uses. When all four operands are constants (the usual
case) they are folded at compile time, leaving one MUL and one ADD.
Quantized (INT): the same folded terms on int32, a per-channel MUL (30-bit multipliers,
rounding shift) and ADD, then one RESCALE into the output (normalization.write_affine).
"""

import numpy as np
import tosa_serializer as ts

from etarm.lowering import fixed_point as fx
from etarm.lowering import tensor_math as tm
from etarm.lowering.normalization import optional_operand_reason, quantized_parameter, spread_bound, write_affine
from etarm.lowering.quantized import FloatAndQuantizedVisitor, input_qparams, output_qparams
from etarm.lowering.registry import register
from etarm.tosa_ir.mapping import tosa_dtype


def _folded_terms(graph, weight, bias, mean, var, eps, channels):
    """(scale, shift) as numpy vectors if every operand is constant, else None."""
    arrays = []
    for operand, default in ((weight, 1.0), (bias, 0.0), (mean, None), (var, None)):
        if operand is None:
            arrays.append(np.full(channels, default, np.float32))
            continue
        data = graph.constant_data(graph.value(operand))
        if data is None:
            return None
        arrays.append(data.astype(np.float32).reshape(channels))
    w, b, m, v = arrays
    scale = w * (np.float32(1) / np.sqrt(v + np.float32(eps)))
    return scale, b - m * scale


def _runtime_terms(graph, weight, bias, mean, var, eps, shape, dtype):
    def vector(operand):
        return None if operand is None else tm.cast(graph, graph.reshape(graph.value(operand), shape), dtype)

    scale = tm.unary(graph, ts.Op.RSQRT, tm.add_scalar(graph, vector(var), eps))
    if weight is not None:
        scale = tm.mul(graph, scale, vector(weight))
    base = tm.scalar(graph, 0.0, dtype, len(shape)) if bias is None else vector(bias)
    return scale, tm.sub(graph, base, tm.mul(graph, vector(mean), scale))


@register
class BatchNormNoTrainingVisitor(FloatAndQuantizedVisitor):
    targets = ("aten._native_batch_norm_legit_no_training.default",)

    def float_reason(self, node, spec):
        value = node.args[0].meta["val"]
        if value.dim() < 2:
            return f"input rank {value.dim()} has no channel dimension"
        if tm.used_items(node) - {0}:
            return "the saved mean/rstd results are used (they are empty in inference)"
        operands = zip(("weight", "bias", "running_mean", "running_var"), node.args[1:5])
        return tm.float_tensor_reason(value) or optional_operand_reason(node, operands)

    def define_float(self, node, graph):
        source, weight, bias, mean, var, _momentum, eps = node.args
        x = tm.widen(graph, graph.value(source))  # float16 computes in float32, as in torch
        channels = x.shape[1]
        shape = (1, channels) + (1,) * (x.rank - 2)
        folded = _folded_terms(graph, weight, bias, mean, var, eps, channels)
        if folded is not None:
            scale, shift = (graph.const(t, x.dtype, shape) for t in folded)
        else:
            scale, shift = _runtime_terms(graph, weight, bias, mean, var, eps, shape, x.dtype)
        tm.bind_result(graph, node, tm.add(graph, tm.mul(graph, x, scale), shift), index=0)

    def define_quantized(self, node, graph):
        """y = x * scale + shift per channel, with x = (q - zero point) * input scale."""
        source = input_qparams(node, 0)
        eps = node.args[6]
        x = graph.value(node.args[0])
        channels = x.shape[1]
        shape = (1, channels) + (1,) * (x.rank - 2)
        weight, bias, mean, var = (quantized_parameter(graph, node, i) for i in (1, 2, 3, 4))
        scale = (1.0 if weight is None else weight.reshape(channels)) / np.sqrt(var.reshape(channels) + eps)
        shift = (0.0 if bias is None else bias.reshape(channels)) - mean.reshape(channels) * scale
        scale = np.broadcast_to(scale, (channels,)).reshape(shape)
        shift = np.broadcast_to(shift, (channels,)).reshape(shape)
        centred = fx.widen(graph, x, int(source.zero_point))
        fake = node.meta["val"][0]
        out = graph.temp(tuple(fake.shape), tosa_dtype(fake.dtype), stem=node.name)
        bound = spread_bound(source, centred=False) * float(source.scale)
        result = write_affine(graph, centred, float(source.scale), bound, scale, shift, output_qparams(node, 0), out)
        graph.bind_item(node, 0, result)
