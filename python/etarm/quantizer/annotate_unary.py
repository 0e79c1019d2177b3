"""Other single-input ops computed on real values: quantize the input and the output.

These are the ops an integer lowering implements as a TABLE lookup (exp, log, gelu,
...) or with its own rescaling (mean, average pooling): input and output are
observed independently.
"""

from __future__ import annotations

import torch

from etarm.quantizer.annotation import ConfigLookup, annotate, input_spec, is_float_tensor
from etarm.quantizer.quantization_config import QuantizationConfig

TABLE_OPS = (
    "aten.exp.default",
    "aten.log.default",
    "aten.log1p.default",
    "aten.expm1.default",
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
    "aten.sin.default",
    "aten.cos.default",
    "aten.abs.default",
    "aten.neg.default",
    "aten.pow.Tensor_Scalar",
    "aten.log_softmax.int",
    "aten._log_softmax.default",
)
REDUCING_OPS = (
    "aten.mean.dim",
    "aten.mean.default",
    "aten.sum.dim_IntList",
    "aten.avg_pool1d.default",
    "aten.avg_pool2d.default",
    "aten.avg_pool3d.default",
    "aten.adaptive_avg_pool1d.default",
    "aten.adaptive_avg_pool2d.default",
)


def annotate_unary(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    source = node.args[0]
    if not is_float_tensor(source) or not is_float_tensor(node):
        return False
    annotate(node, {source: input_spec(source, config.input_activation)}, config.output_activation)
    return True


ANNOTATORS = {name: annotate_unary for name in TABLE_OPS + REDUCING_OPS}
