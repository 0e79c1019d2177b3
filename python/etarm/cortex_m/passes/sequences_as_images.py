"""SequencesAsImages: quantized 1-D ops on [N, C, L] sequences become the 2-D image ops of height 1 that the cortex_m
rewrites after it take, so an audio network's convolutions, pools and means run on CMSIS-NN instead of in float.

- ``conv1d``: dequantize -> convolution(3-D input, constant weight) [-> activation] -> quantize becomes the same
  convolution on ``[N, C, 1, L]`` with its weight ``[O, I, 1, K]`` (a new constant) and its stride, padding and
  dilation ``[1, s]``, ``[0, p]``, ``[1, d]``.
- ``max_pool1d`` / ``avg_pool1d``: the edge program already pools in 2-D between an ``unsqueeze_copy`` of the
  dequantized input and a ``squeeze_copy`` before the quantize; both move onto the integer tensors.
- ``mean`` over the last dim of a 3-D tensor: the mean over H and W of ``[N, C, 1, L]``.

The integer views only reshape: quantizing commutes with them, so the values are those of the 1-D pattern. The 2-D
rewrites then decide, with their own reasons, whether a kernel takes the op (else it runs portable, in float, as 2-D).
"""

from __future__ import annotations

import torch
from executorch.backends.transforms.utils import create_constant_placeholder
from executorch.exir.dialects._ops import ops as exir_ops
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from etarm.cortex_m.passes.matching import NotLowered, constant, drop_unread_constants
from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.passes.fold_quantize_nodes import constant_reader
from etarm.tosa_ir.quant_params import is_dequantize, is_fused_activation, is_quantize

VIEW = exir_ops.edge.aten.view_copy.default
CONVOLUTION = exir_ops.edge.aten.convolution.default
MEAN = exir_ops.edge.aten.mean.dim
_POOLS = ("aten.avg_pool2d.default", "aten.max_pool2d_with_indices.default")
_HANDLED = ("aten.convolution.default", "aten.unsqueeze_copy.default", "aten.mean.dim")


def _with_value(node: torch.fx.Node, like: torch.Tensor, shape, dtype: torch.dtype | None = None) -> torch.fx.Node:
    with like.fake_mode:
        node.meta["val"] = torch.empty(list(shape), dtype=dtype or like.dtype)
    return node


def _integer_view(graph: torch.fx.Graph, value: torch.fx.Node, shape) -> torch.fx.Node:
    if value.target == VIEW and tuple(value.args[0].meta["val"].shape) == tuple(shape):
        return value.args[0]  # undoes the view of the op before: two 1-D ops in a row stay images between them
    return _with_value(graph.call_function(VIEW, (value, [int(s) for s in shape])), value.meta["val"], shape)


def _requantize_like(graph: torch.fx.Graph, qdq: torch.fx.Node, value: torch.fx.Node) -> torch.fx.Node:
    """``qdq``'s (de)quantize, with its parameters, applied to ``value`` (of another shape)."""
    node = graph.call_function(qdq.target, (value, *qdq.args[1:]), dict(qdq.kwargs))
    return _with_value(node, value.meta["val"], value.meta["val"].shape, qdq.meta["val"].dtype)


def _as_image(graph: torch.fx.Graph, dq: torch.fx.Node) -> torch.fx.Node:
    """The dequantize of ``dq``'s integer [N, C, L] input viewed as [N, C, 1, L]."""
    n, c, length = dq.args[0].meta["val"].shape
    return _requantize_like(graph, dq, _integer_view(graph, dq.args[0], (n, c, 1, length)))


def _quantized_as_sequence(graph: torch.fx.Graph, quantize: torch.fx.Node, image: torch.fx.Node) -> None:
    """Quantizes ``image`` (a 2-D result) as ``quantize`` did, viewed in ``quantize``'s shape, which it replaces."""
    quantized = _requantize_like(graph, quantize, image)
    if tuple(image.meta["val"].shape) == tuple(quantize.meta["val"].shape):
        quantize.replace_all_uses_with(quantized)
        graph.erase_node(quantize)
        return
    sequence = _integer_view(graph, quantized, quantize.meta["val"].shape)
    sequence.meta = dict(quantize.meta)
    quantize.replace_all_uses_with(sequence)
    graph.erase_node(quantize)


def _sequence_input(node: torch.fx.Node) -> torch.fx.Node:
    dq = node.args[0]
    if not is_dequantize(dq) or len(dq.args[0].meta["val"].shape) != 3:
        raise NotLowered("its input is not a dequantized [N, C, L] tensor")
    return dq


def _single_quantize(node: torch.fx.Node) -> torch.fx.Node:
    users = list(node.users)
    if len(users) != 1 or not is_quantize(users[0]):
        raise NotLowered("its result is not quantized directly")
    return users[0]


class SequencesAsImages(ProgramPass):
    """Rewrites quantized conv1d, 1-D pools and means over the last dim of [N, C, L] as their [N, C, 1, L] forms."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        nodes = [n for n in graph.nodes if n.op == "call_function" and op_name(n.target) in _HANDLED]
        rewrites = {
            "aten.convolution.default": lambda n: self._convolution(program, graph, n),
            "aten.unsqueeze_copy.default": lambda n: self._pool(graph, n),
            "aten.mean.dim": lambda n: self._mean(graph, n),
        }
        changed = False
        for node in nodes:
            try:
                rewrites[op_name(node.target)](node)
                changed = True
            except NotLowered:
                pass  # the 2-D rewrites' reasons are the ones the report needs
        if changed and program is not None:
            drop_unread_constants(program, graph)
        return changed

    @staticmethod
    def _convolution(program: ExportedProgram, graph: torch.fx.Graph, convolution: torch.fx.Node) -> None:
        dq_x, dq_weight, dq_bias, stride, padding, dilation, transposed, _, groups = convolution.args
        if transposed or len(stride) != 1 or program is None:
            raise NotLowered("not a 1-D convolution with readable weights")
        _sequence_input(convolution)
        if not is_dequantize(dq_weight):
            raise NotLowered("its weight is not dequantized")
        weight = constant(dq_weight.args[0], constant_reader(program), "weight")
        users = list(convolution.users)
        activation = users[0] if len(users) == 1 and is_fused_activation(users[0]) else None
        quantize = _single_quantize(activation or convolution)

        first_input = next(n for n in graph.nodes if n.op == "placeholder")
        with graph.inserting_before(first_input):
            image_weight = create_constant_placeholder(
                program,
                graph,
                f"{convolution.name}_image_weight",
                InputKind.PARAMETER,
                weight.unsqueeze(2).contiguous(),
            )
        with graph.inserting_before(convolution):
            image = _as_image(graph, dq_x)
            dq_image_weight = _requantize_like(graph, dq_weight, image_weight)
            args = (
                image, dq_image_weight, dq_bias, [1, int(stride[0])], [0, int(padding[0])], [1, int(dilation[0])],
                False, [0, 0], int(groups),
            )  # fmt: skip
            n, out_channels, length = convolution.meta["val"].shape
            result = _with_value(
                graph.call_function(CONVOLUTION, args), convolution.meta["val"], (n, out_channels, 1, length)
            )
            if activation is not None:
                result = _with_value(
                    graph.call_function(activation.target, (result, *activation.args[1:]), dict(activation.kwargs)),
                    result.meta["val"],
                    result.meta["val"].shape,
                )
            _quantized_as_sequence(graph, quantize, result)
        for done in (activation, convolution):
            if done is not None:
                graph.erase_node(done)

    @staticmethod
    def _pool(graph: torch.fx.Graph, unsqueeze: torch.fx.Node) -> None:
        """dequantize -> unsqueeze(-2) -> 2-D pool [-> getitem 0] -> squeeze(-2) -> quantize."""
        dq = _sequence_input(unsqueeze)
        if int(unsqueeze.args[1]) not in (-2, 2) or len(unsqueeze.users) != 1:
            raise NotLowered("not the unsqueeze of a 1-D pool")
        pool = next(iter(unsqueeze.users))
        if op_name(pool.target) not in _POOLS:
            raise NotLowered("not the unsqueeze of a 1-D pool")
        result = pool
        if op_name(pool.target).startswith("aten.max_pool2d_with_indices"):
            if len(pool.users) != 1 or next(iter(pool.users)).args[1] != 0:
                raise NotLowered("its max pool's indices are used")
            result = next(iter(pool.users))
        users = list(result.users)
        if (
            len(users) != 1
            or op_name(users[0].target) != "aten.squeeze_copy.dims"
            or list(users[0].args[1])
            not in (
                [-2],
                [2],
            )
        ):
            raise NotLowered("its pool's result is not squeezed back to [N, C, L]")
        squeeze = users[0]
        quantize = _single_quantize(squeeze)
        with graph.inserting_before(unsqueeze):
            image = _as_image(graph, dq)
        pool.replace_input_with(unsqueeze, image)
        graph.erase_node(unsqueeze)
        with graph.inserting_before(quantize):
            _quantized_as_sequence(graph, quantize, result)
        graph.erase_node(squeeze)

    @staticmethod
    def _mean(graph: torch.fx.Graph, mean: torch.fx.Node) -> None:
        dq = _sequence_input(mean)
        dims = mean.args[1] if len(mean.args) > 1 else mean.kwargs.get("dim")
        if dims is None or [int(d) % 3 for d in dims] != [2] or mean.kwargs.get("dtype") is not None:
            raise NotLowered("not a mean over the last dim of [N, C, L]")
        quantize = _single_quantize(mean)
        n, c, _ = dq.args[0].meta["val"].shape
        with graph.inserting_before(mean):
            image = _as_image(graph, dq)
            result = _with_value(graph.call_function(MEAN, (image, [2, 3], False)), mean.meta["val"], (n, c))
            # The view to the quantize's shape restores a kept dim.
            _quantized_as_sequence(graph, quantize, result)
        graph.erase_node(mean)
