"""relu / relu6 / hardtanh / clamp: fused into the op before them, or quantized alone.

Fused (conv/linear/matmul/add/sub/mul followed by the activation, same config, the
op's only user): no quantize/dequantize between the two, and the activation's output
observer sets the parameters of both, so the integer result spans only the range
the activation lets through. Alone: input and output quantized independently.
"""

from __future__ import annotations

import torch

from etarm.op_names import op_name
from etarm.quantization.annotation import (
    ConfigLookup,
    annotate,
    input_spec,
    is_annotated,
    is_float_tensor,
    single_user,
)
from etarm.quantization.quantization_config import QuantizationConfig
from etarm.tosa_ir.quant_params import FUSED_ACTIVATIONS


def fuse_following_activation(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    """Annotates ``node``'s sole user as a fused activation if it is one; True if fused.

    Only when the activation resolves to the same config (module filters may differ).
    """
    user = single_user(node)
    if user is None or user.op != "call_function" or op_name(user.target) not in FUSED_ACTIVATIONS:
        return False
    if is_annotated(user) or user.args[0] is not node or config.output_activation is None:
        return False
    if config_for(user) != config:
        return False
    annotate(user, {}, config.output_activation)
    return True


def annotate_activation(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    source = node.args[0]
    if not is_float_tensor(source):
        return False
    annotate(node, {source: input_spec(source, config.input_activation)}, config.output_activation)
    return True


ANNOTATORS = {name: annotate_activation for name in sorted(FUSED_ACTIVATIONS)}
