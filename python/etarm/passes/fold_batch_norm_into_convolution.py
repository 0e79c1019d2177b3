"""FoldBatchNormIntoConvolution: inference BatchNorm after a convolution costs nothing.

``conv(x, w, b)`` followed by ``batch_norm(mean, var, gamma, beta, eps)`` is one
convolution with ``w' = w * s`` and ``b' = (b - mean) * s + beta`` per output channel,
``s = gamma / sqrt(var + eps)``. Folded when every tensor involved is a constant of the
partition and the convolution's result feeds only the BatchNorm (a quantized model has
Q/DQ nodes between them: its BatchNorms were folded by the quantizer already).
"""

from __future__ import annotations

import operator

import torch
from executorch.backends.transforms.utils import create_constant_placeholder, delete_constant_placeholder
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.op_names import op_name
from etarm.passes.base import PartitionPass
from etarm.passes.fold_quantize_nodes import constant_reader

_BATCH_NORM = "aten._native_batch_norm_legit_no_training.default"
_CONVOLUTION = "aten.convolution.default"
_WEIGHT, _BIAS, _TRANSPOSED, _GROUPS = 1, 2, 6, 8


def _normalized_output(batch_norm: torch.fx.Node) -> torch.fx.Node | None:
    """The getitem reading the normalised tensor, when the saved mean/invstd are unused."""
    users = list(batch_norm.users)
    if not all(u.target is operator.getitem for u in users):
        return None
    if any(u.args[1] != 0 and u.users for u in users):
        return None
    return next((u for u in users if u.args[1] == 0), None)


class FoldBatchNormIntoConvolution(PartitionPass):
    """Folds an inference batch norm that follows a convolution into its weights and bias."""

    def rewrite(self, program: ExportedProgram) -> None:
        read = constant_reader(program)
        graph = program.graph_module.graph
        for batch_norm in [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) == _BATCH_NORM]:
            self._fold(program, graph, read, batch_norm)

    def _fold(self, program, graph, read, batch_norm: torch.fx.Node) -> None:
        conv, gamma, beta, mean, var, _momentum, eps = batch_norm.args
        normalized = _normalized_output(batch_norm)
        if normalized is None or not isinstance(conv, torch.fx.Node) or op_name(conv.target) != _CONVOLUTION:
            return
        if len(conv.users) != 1:
            return
        weight_node, bias_node = conv.args[_WEIGHT], conv.args[_BIAS]
        transposed, groups = conv.args[_TRANSPOSED], conv.args[_GROUPS]
        if transposed and groups != 1:
            return  # per-channel scaling would straddle the (in, out / groups) weight layout
        tensors = [read(n) if isinstance(n, torch.fx.Node) else None for n in (weight_node, gamma, beta, mean, var)]
        bias = read(bias_node) if isinstance(bias_node, torch.fx.Node) else None
        weight, gamma_t, beta_t, mean_t, var_t = tensors
        if weight is None or mean_t is None or var_t is None or (bias_node is not None and bias is None):
            return
        if (gamma is not None and gamma_t is None) or (beta is not None and beta_t is None):
            return
        channels = mean_t.numel()
        scale = torch.rsqrt(var_t.double() + eps)
        if gamma_t is not None:
            scale = scale * gamma_t.double()
        axis = 1 if transposed else 0
        shape = [1] * weight.dim()
        shape[axis] = channels
        folded_weight = (weight.double() * scale.reshape(shape)).to(weight.dtype)
        folded_bias = (bias.double() if bias is not None else torch.zeros(channels, dtype=torch.float64)) - mean_t.double()
        folded_bias = folded_bias * scale + (beta_t.double() if beta_t is not None else 0.0)
        first_input = next(n for n in graph.nodes if n.op == "placeholder")
        with graph.inserting_before(first_input):
            new_weight = create_constant_placeholder(
                program, graph, f"{conv.name}_bn_folded_weight", InputKind.PARAMETER, folded_weight.contiguous()
            )
            new_bias = create_constant_placeholder(
                program, graph, f"{conv.name}_bn_folded_bias", InputKind.PARAMETER, folded_bias.to(weight.dtype)
            )
        conv.update_arg(_WEIGHT, new_weight)
        conv.update_arg(_BIAS, new_bias)
        normalized.replace_all_uses_with(conv)
        for user in list(batch_norm.users):
            graph.erase_node(user)
        graph.erase_node(batch_norm)
        for old in (weight_node, bias_node, gamma, beta, mean, var):
            if isinstance(old, torch.fx.Node) and not old.users:
                delete_constant_placeholder(program, old)
