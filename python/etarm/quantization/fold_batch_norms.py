"""Folds inference batch norms into the convolutions they follow, before prepare_pt2e.

prepare_pt2e folds them too, but walks and lints the whole graph once per batch norm, which
grows with the square of a network's size (about a second of a MobileNetV2 compile). Folded
here with one walk, prepare_pt2e finds none left. The folded weights are what prepare_pt2e
computes (torch's ``fuse_conv_bn_weights``), stored under the same names.

prepare_pt2e also folds where that changes the model: into a convolution whose output other
nodes read too (they then read the normalized values), and, for a weight two convolutions
share, it drops the second batch norm. Here such a batch norm gets its own convolution, with its
own copy of the weight and bias, folded: every reader computes what the float model computes.
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
    bias = _argument(convolution, 2)
    statistics = [_argument(norm, index) for index in range(1, 5)]
    return (
        _is_get_attr(convolution.args[1])
        and (bias is None or _is_get_attr(bias))
        and all(_is_get_attr(value) for value in statistics)
    )


def _is_private(convolution: torch.fx.Node) -> bool:
    """Only its batch norm reads the convolution, and only the convolution its weight and bias."""
    bias = _argument(convolution, 2)
    return (
        len(convolution.users) == 1 and len(convolution.args[1].users) == 1 and (bias is None or len(bias.users) == 1)
    )


def _private_copy(module: torch.fx.GraphModule, norm: torch.fx.Node) -> None:
    """Gives ``norm`` a convolution of its own, reading its own copies of the weight and bias."""
    convolution = norm.args[0]
    arguments = list(convolution.args) + [None] * (3 - len(convolution.args))
    with module.graph.inserting_before(convolution):
        for index in (1, 2):
            if arguments[index] is None:
                continue
            name = f"{arguments[index].target}_for_{norm.name}"
            _set_parameter(module, name, torch.nn.Parameter(_attribute(module, arguments[index]).detach().clone()))
            copy = module.graph.get_attr(name)
            copy.meta = dict(arguments[index].meta)
            arguments[index] = copy
    with module.graph.inserting_after(convolution):
        own = module.graph.call_function(convolution.target, tuple(arguments), dict(convolution.kwargs))
    own.meta = dict(convolution.meta)
    norm.replace_input_with(convolution, own)


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
        if not _is_private(norm.args[0]):
            _private_copy(module, norm)
        _fold(module, norm)
    if norms:
        module.graph.eliminate_dead_code()
        for norm in norms:
            if not norm._erased and not norm.users:
                module.graph.erase_node(norm)
        module.recompile()
    return len(norms)
