"""QuantizeBeforeFusedActivations: an int8 add or mul whose result goes through a relu / relu6 / hardtanh / clamp the
quantizer fused into it (no quantize between them) gets a quantize -> dequantize with the activation's output
parameters before the activation, so that QuantizedAddAsCmsisNn / QuantizedMulAsCmsisNn take the op (its result now
quantized directly) and QuantizedClampAsCortexM the activation (at equal parameters: a plain clamp, or nothing).

Exact: quantizing is monotonic and maps each bound b of the activation to q(b), so q(act(x)) = clamp(q(x), q(low),
q(high)) for every x; the activation's clamp in output steps after the op's quantize gives PT2E's values."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.passes.matching import int8_per_tensor
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import is_dequantize, is_fused_activation, is_quantize, qparams_of

_ELEMENTWISE = ("aten.add.Tensor", "aten.mul.Tensor")
_DEQUANTIZE = exir_ops.edge.quantized_decomposed.dequantize_per_tensor.default


def _int8_operands(node: torch.fx.Node) -> bool:
    operands = node.args[:2]
    return all(is_dequantize(a) and int8_per_tensor(qparams_of(a)) for a in operands)


class QuantizeBeforeFusedActivations(ProgramPass):
    """Inserts quantize -> dequantize (the activation's output parameters) between an int8 add / mul and the
    activation fused into it."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        changed = False
        for node in [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) in _ELEMENTWISE]:
            users = list(node.users)
            if len(users) != 1 or not is_fused_activation(users[0]) or not _int8_operands(node):
                continue
            activation = users[0]
            after = list(activation.users)
            if len(after) != 1 or not is_quantize(after[0]) or not int8_per_tensor(qparams_of(after[0])):
                continue
            quantize = after[0]
            with graph.inserting_before(activation):
                requantized = graph.call_function(quantize.target, (node, *quantize.args[1:]), dict(quantize.kwargs))
                dequantized = graph.call_function(_DEQUANTIZE, (requantized, *quantize.args[1:]))
            requantized.meta = {"val": quantize.meta["val"]}
            dequantized.meta = {"val": node.meta["val"]}
            activation.replace_input_with(node, dequantized)
            changed = True
        return changed
