"""Ops with a known output range: sigmoid (0..1), tanh and sign (-1..1), softmax (0..1).

Their outputs get fixed parameters covering exactly that range
(FixedQParamsQuantizationSpec) instead of observed ones, so every integer step is
used and calibration cannot clip the range.
"""

from __future__ import annotations

import torch

from etarm.op_names import op_name
from etarm.quantization.annotation import ConfigLookup, annotate, input_spec, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig

OUTPUT_RANGES = {
    "aten.sigmoid.default": (0.0, 1.0),
    "aten.sigmoid_.default": (0.0, 1.0),
    "aten.hardsigmoid.default": (0.0, 1.0),
    "aten.tanh.default": (-1.0, 1.0),
    "aten.tanh_.default": (-1.0, 1.0),
    # -1, 0 or 1 exactly: an observer (a histogram search) could clip the range instead.
    "aten.sign.default": (-1.0, 1.0),
    "aten.softmax.int": (0.0, 1.0),
    "aten._softmax.default": (0.0, 1.0),
}


def annotate_fixed_range(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    source = node.args[0]
    if not is_float_tensor(source) or config.output_activation is None:
        return False
    low, high = OUTPUT_RANGES[op_name(node.target)]
    annotate(node, {source: input_spec(source, config.input_activation)}, config.fixed_output(low, high))
    return True


ANNOTATORS = {name: annotate_fixed_range for name in OUTPUT_RANGES}
