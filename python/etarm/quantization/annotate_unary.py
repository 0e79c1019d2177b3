"""Other single-input ops computed on real values: quantize the input and the output.

These are the ops an integer lowering implements as a lookup of the function (exp,
log, gelu, floor, x ** 2, remainder by a number, ...), with integer ops and rescaling
(abs, neg, mean, average pooling) or, for glu, a lookup and a product: input and output
are observed independently.
"""

from __future__ import annotations

import torch

from etarm.op_names import op_name
from etarm.quantization.annotation import ConfigLookup, annotate, input_spec, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig

TABLE_OPS = (
    "aten.exp.default",
    "aten.log.default",
    "aten.log1p.default",
    "aten.expm1.default",
    "aten.log2.default",
    "aten.log10.default",
    "aten.logit.default",
    "aten.gelu.default",
    "aten.silu.default",
    "aten.hardswish.default",
    "aten.elu.default",
    "aten.celu.default",
    "aten.selu.default",
    "aten.leaky_relu.default",
    "aten.softplus.default",
    "aten.mish.default",
    "aten.rsqrt.default",
    "aten.sqrt.default",
    "aten.reciprocal.default",
    "aten.erf.default",
    "aten.erfinv.default",
    "aten.sin.default",
    "aten.cos.default",
    "aten.tan.default",
    "aten.asin.default",
    "aten.acos.default",
    "aten.atan.default",
    "aten.sinh.default",
    "aten.cosh.default",
    "aten.asinh.default",
    "aten.acosh.default",
    "aten.atanh.default",
    "aten.abs.default",
    "aten.neg.default",
    "aten.floor.default",
    "aten.ceil.default",
    "aten.round.default",
    "aten.round.decimals",
    "aten.trunc.default",
    "aten.square.default",
    "aten.pow.Tensor_Scalar",
    "aten.remainder.Scalar",
    "aten.fmod.Scalar",
    "aten.glu.default",
    "aten.log_softmax.int",
    "aten._log_softmax.default",
)
# Ops whose quantized tensor is not argument 0 (2.0 ** x is pow.Scalar(2.0, x)).
TENSOR_ARGUMENT = {"aten.pow.Scalar": 1}
# Averages stay within their input's range: a target may quantize them with their
# input's parameters (tosa_quantizer.EthosUQuantizer on Ethos-U85).
AVERAGING_OPS = (
    "aten.mean.dim",
    "aten.mean.default",
    "aten.avg_pool1d.default",
    "aten.avg_pool2d.default",
    "aten.avg_pool3d.default",
    "aten.adaptive_avg_pool1d.default",
    "aten.adaptive_avg_pool2d.default",
)
REDUCING_OPS = AVERAGING_OPS + ("aten.sum.dim_IntList", "aten.sum.default", "aten.cumsum.default")


def annotate_unary(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    source = node.args[TENSOR_ARGUMENT.get(op_name(node.target), 0)]
    if not is_float_tensor(source) or not is_float_tensor(node):
        return False
    annotate(node, {source: input_spec(source, config.input_activation)}, config.output_activation)
    return True


ANNOTATORS = {name: annotate_unary for name in TABLE_OPS + tuple(TENSOR_ARGUMENT) + REDUCING_OPS}
