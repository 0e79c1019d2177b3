"""Folds inference batch norms into the convolutions they follow, before prepare_pt2e.

prepare_pt2e folds them too, but walks and lints the whole graph once per batch norm, which
grows with the square of a network's size (about a second of a MobileNetV2 compile). Folded
here with one walk, prepare_pt2e finds none left. The folded weights are what prepare_pt2e
computes (torch's ``fuse_conv_bn_weights``), stored under the same names; a batch norm whose
convolution shares its weight with another, or feeds other users, is left to prepare_pt2e.
"""

from __future__ import annotations

import operator
from functools import reduce

import torch
from torch.nn.utils.fusion import fuse_conv_bn_weights

aten = torch.ops.aten

_CONVOLUTIONS = {
    aten.conv1d.default: False,
    aten.conv2d.default: False,
    aten.conv3d.default: False,
    aten.conv_transpose1d.default: True,
    aten.conv_transpose2d.input: True,
    aten.conv_transpose3d.input: True,
}
# Inference batch norms and the position of their epsilon argument.
_EPSILON_INDEX = {aten._native_batch_norm_legit_no_training.default: 6, aten.batch_norm.default: 7}
_TRAINING_INDEX = 5  # aten.batch_norm's ``training``


def _attribute(module: torch.nn.Module, node: torch.fx.Node | None):
    return None if node is None else reduce(getattr, node.target.split("."), module)


def _set_parameter(module: torch.nn.Module, name: str, value: torch.nn.Parameter) -> None:
    *path, leaf = name.split(".")
    setattr(reduce(getattr, path, module), leaf, value)


def _argument(node: torch.fx.Node, index: int):
    argument = node.target._schema.arguments[index]
    return node.args[index] if index < len(node.args) else node.kwargs.get(argument.name, argument.default_value)


def _is_get_attr(node) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "get_attr"


def _foldable(norm: torch.fx.Node) -> bool:
    if norm.op != "call_function" or norm.target not in _EPSILON_INDEX:
        return False
    if norm.target == aten.batch_norm.default and _argument(norm, _TRAINING_INDEX):
        return False
    convolution = norm.args[0]
    if not isinstance(convolution, torch.fx.Node) or convolution.target not in _CONVOLUTIONS:
        return False
    weight = convolution.args[1]
    bias = _argument(convolution, 2)
    statistics = [_argument(norm, index) for index in range(1, 5)]
    return (
        len(convolution.users) == 1
        and _is_get_attr(weight)
        and len(weight.users) == 1
        and (bias is None or (_is_get_attr(bias) and len(bias.users) == 1))
        and all(_is_get_attr(value) for value in statistics)
    )


def _fold(module: torch.fx.GraphModule, norm: torch.fx.Node) -> None:
    convolution = norm.args[0]
    weight_node, bias_node = convolution.args[1], _argument(convolution, 2)
    scale, shift, mean, variance = (_attribute(module, _argument(norm, index)) for index in range(1, 5))
    weight, bias = fuse_conv_bn_weights(
        _attribute(module, weight_node),
        _attribute(module, bias_node),
        mean,
        variance,
        _argument(norm, _EPSILON_INDEX[norm.target]),
        scale,
        shift,
        transpose=_CONVOLUTIONS[convolution.target],
    )
    _set_parameter(module, weight_node.target, weight)
    if bias_node is None:
        bias_name = f"{weight_node.target}_bias"
        _set_parameter(module, bias_name, bias)
        with module.graph.inserting_before(convolution):
            bias_node = module.graph.get_attr(bias_name)
        if "val" in convolution.meta:
            bias_node.meta["val"] = convolution.meta["val"].fake_mode.from_tensor(bias, static_shapes=True)
        arguments = list(convolution.args) + [None] * (3 - len(convolution.args))
        arguments[2] = bias_node
        convolution.args = tuple(arguments)
    else:
        _set_parameter(module, bias_node.target, bias)
    if norm.target == aten.batch_norm.default:
        norm.replace_all_uses_with(convolution)
    else:  # outputs (normalized, mean, inverse deviation); only the first is ever read at inference
        for user in list(norm.users):
            if user.target == operator.getitem and user.args[1] == 0:
                user.replace_all_uses_with(convolution)


def fold_batch_norms(module: torch.fx.GraphModule) -> int:
    """Folds each foldable batch norm of ``module`` in place; returns how many."""
    norms = [node for node in module.graph.nodes if _foldable(node)]
    for norm in norms:
        _fold(module, norm)
    if norms:
        module.graph.eliminate_dead_code()
        for norm in norms:
            if not norm._erased and not norm.users:
                module.graph.erase_node(norm)
        module.recompile()
    return len(norms)
