"""Quantizers that quantize one operator differently from the default, for tests of the
lowerings' other paths (operands or results with parameters of their own)."""

from __future__ import annotations

import torch

from etarm.op_names import op_name
from etarm.quantization.annotate_elementwise import annotate_binary
from etarm.quantization.annotation import annotate
from etarm.quantization.quantization_config import get_symmetric_quantization_config
from etarm.quantizer import TOSAQuantizer


class OwnParameters(TOSAQuantizer):
    """Observes the operands and the result of ``ops`` each on their own, where the default
    shares one set of parameters between them (maximum / minimum, bilinear resizes)."""

    def __init__(self, target: str, *ops: str):
        super().__init__(target)
        self.own = set(ops)
        self.set_global(get_symmetric_quantization_config())

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        config = self.global_config
        for node in model.graph.nodes:
            if node.op != "call_function" or op_name(node.target) not in self.own:
                continue
            if not annotate_binary(node, config, self.config_for):
                annotate(node, {node.args[0]: config.input_activation}, config.output_activation)
        return super().annotate(model)
