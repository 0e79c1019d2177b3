"""QuantizedAddAsCmsisNn: dequantize -> add -> quantize (int8, per tensor) as cortex_m.quantized_add."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram

from etarm.cortex_m.ops.quantized_add import ADD_LEFT_SHIFT
from etarm.cortex_m.passes.matching import REASON, int8_per_tensor
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.errors import EtarmError
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.tosa_ir.quant_params import QuantParams, is_dequantize, is_quantize, qparams_of

_ADDS = ("aten.add.Tensor",)


def _why_not(add: torch.fx.Node) -> str | None:
    """None if ``add`` reads two int8 dequantized tensors and only feeds one int8 quantize; else why not."""
    if add.kwargs.get("alpha", 1) != 1:
        return "add with alpha != 1 has no cortex_m kernel yet"
    operands = add.args[:2]
    if not all(is_dequantize(a) for a in operands):
        return "an operand is not a dequantized int8 tensor (float or a Python number)"
    users = list(add.users)
    if len(users) != 1 or not is_quantize(users[0]):
        return "its result is not quantized directly (float consumer or fused activation)"
    if not all(int8_per_tensor(qparams_of(n)) for n in (*operands, users[0])):
        return "not int8 with per-tensor parameters over [-128, 127]"
    return None


def _requantize_args(params: QuantParams, scale: float) -> list[int]:
    return [int(params.zero_point), *multiplier_and_shift(scale)]


class QuantizedAddAsCmsisNn(ProgramPass):
    """Replaces dequantize -> add -> quantize (int8, per-tensor) by cortex_m.quantized_add (arm_elementwise_add_s8)."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        changed = False
        for add in [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) in _ADDS]:
            reason = _why_not(add)
            if reason is None:
                reason = self._replace(graph, add)
            if reason is not None:
                add.meta[REASON] = reason
            else:
                changed = True
        if changed:
            graph.eliminate_dead_code()
        return changed

    @staticmethod
    def _replace(graph: torch.fx.Graph, add: torch.fx.Node) -> str | None:
        dq_a, dq_b = add.args[:2]
        quantize = next(iter(add.users))
        a, b, out = qparams_of(dq_a), qparams_of(dq_b), qparams_of(quantize)
        # As the TOSA lowering of a quantized add: both operands on a common int32 scale of
        # 2 * max(scale) / 2**20, their sum rescaled into the output.
        twice_max = 2 * max(a.scale, b.scale)
        unit = twice_max / (1 << ADD_LEFT_SHIFT)
        try:
            args = [
                dq_a.args[0], *_requantize_args(a, a.scale / twice_max),
                dq_b.args[0], *_requantize_args(b, b.scale / twice_max),
                *_requantize_args(out, unit / out.scale),
            ]  # fmt: skip
        except EtarmError as error:
            return str(error)
        with graph.inserting_before(quantize):
            node = graph.call_function(exir_ops.edge.cortex_m.quantized_add.default, tuple(args))
        node.meta = dict(quantize.meta)  # its value: int8 at the add's (broadcast) shape
        quantize.replace_all_uses_with(node)
        graph.erase_node(quantize)
        graph.erase_node(add)
        return None
