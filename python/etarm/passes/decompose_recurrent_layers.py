"""DecomposeRecurrentLayers: writes nn.LSTM and nn.GRU (aten.lstm / aten.gru) as their cells' arithmetic before annotation.

Exported, an nn.LSTM or nn.GRU is one ``aten.lstm.input`` / ``aten.gru.input`` node that
edge lowering only later unrolls into linears, sigmoids, tanhs, products and sums; the
quantizer never sees those pieces, so none of them carries quantization parameters and
all stay on the CPU. Unrolled here, every step is annotated and calibrated like any other
op: each gate, cell state and hidden state gets its own observer, the selects, slices
and stacks that only move values share parameters (annotate_shared.py).

Per layer and direction the input is projected for all steps at once (one linear with
``W_ih``, ``b_ih``), then each step adds ``h @ W_hh^T + b_hh``::

    LSTM: i, f, g, o = split(gates); c = sigmoid(f) * c + sigmoid(i) * tanh(g); h = sigmoid(o) * tanh(c)
    GRU:  r, z = sigmoid(x_rz + h_rz); n = tanh(x_n + r * h_n); h = n + z * (h - n)

An initial state that is all zeros (the default) is left out of the arithmetic instead of
being multiplied through: a zero tensor has no range to observe, and the first step costs
a matrix product less. LSTMs with projections (proj_size) and training-mode dropout stay whole.
"""

from __future__ import annotations

import operator

import torch

from etarm.op_names import op_name
from etarm.passes.base import AnnotationPass
from etarm.passes.node_builder import NodeBuilder, finish

aten = torch.ops.aten

_ZERO_FILLS = ("aten.zeros.default", "aten.zeros_like.default", "aten.new_zeros.default")
# op -> the position of its fill value
_FILLS = {"aten.full.default": 1, "aten.full_like.default": 1, "aten.new_full.default": 2}
_LAYERS = ("aten.lstm.input", "aten.gru.input")


def _is_zero(node) -> bool:
    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return False
    name = op_name(node.target)
    if name in _ZERO_FILLS:
        return True
    position = _FILLS.get(name)
    return position is not None and len(node.args) > position and node.args[position] == 0


class _Layer:
    """The arguments of one aten.lstm.input / aten.gru.input node (their shared schema)."""

    def __init__(self, node: torch.fx.Node):
        names = (
            "input",
            "hx",
            "params",
            "has_biases",
            "num_layers",
            "dropout",
            "train",
            "bidirectional",
            "batch_first",
        )
        values = dict(zip(names, node.args))
        self.is_lstm = op_name(node.target) == "aten.lstm.input"
        self.x = values["input"]
        self.states = list(values["hx"]) if self.is_lstm else [values["hx"]]
        self.params = list(values["params"])
        self.has_biases = values["has_biases"]
        self.layers = values["num_layers"]
        self.directions = 2 if values["bidirectional"] else 1
        self.dropout = values["dropout"] if values["train"] else 0.0
        # Unbatched input (time, features) has no batch dimension; batch_first only moves it.
        self.time_dim = 1 if values["batch_first"] and self.x.meta["val"].dim() == 3 else 0

    def applies(self, node: torch.fx.Node) -> bool:
        per_direction = 4 if self.has_biases else 2  # a projection (proj_size) adds a weight
        taken_apart = all(u.op == "call_function" and u.target is operator.getitem for u in node.users)
        return taken_apart and self.dropout == 0.0 and len(self.params) == self.layers * self.directions * per_direction

    def weights(self, layer: int, direction: int):
        """W_ih, W_hh, b_ih, b_hh (biases None without them)."""
        per_direction = 4 if self.has_biases else 2
        start = (layer * self.directions + direction) * per_direction
        found = self.params[start : start + per_direction]
        return (*found, None, None) if not self.has_biases else tuple(found)


def _initial_state(add: NodeBuilder, state: torch.fx.Node, index: int):
    """Layer/direction ``index``'s initial state, None if it is zero."""
    return None if _is_zero(state) else add(aten.select.int, state, 0, index)


def _recurrent_term(add: NodeBuilder, h, w_hh, b_hh):
    """``h @ W_hh^T + b_hh``: with a zero state only the bias (None without one)."""
    if h is not None:
        return add(aten.linear.default, h, w_hh, b_hh)
    return b_hh


def _split(add: NodeBuilder, gates: torch.fx.Node, count: int, hidden: int) -> list[torch.fx.Node]:
    return [add(aten.slice.Tensor, gates, -1, k * hidden, (k + 1) * hidden) for k in range(count)]


def _plus(add: NodeBuilder, a, b):
    return a if b is None else add(aten.add.Tensor, a, b)


def _lstm_step(add: NodeBuilder, projected, state, w_hh, b_hh, hidden):
    h, c = state
    gates = _plus(add, projected, _recurrent_term(add, h, w_hh, b_hh))
    i, f, g, o = _split(add, gates, 4, hidden)
    update = add(aten.mul.Tensor, add(aten.sigmoid.default, i), add(aten.tanh.default, g))
    if c is not None:
        update = add(aten.add.Tensor, add(aten.mul.Tensor, add(aten.sigmoid.default, f), c), update)
    h = add(aten.mul.Tensor, add(aten.sigmoid.default, o), add(aten.tanh.default, update))
    return h, (h, update)


def _gru_step(add: NodeBuilder, projected, state, w_hh, b_hh, hidden):
    (h,) = state
    x_r, x_z, x_n = _split(add, projected, 3, hidden)
    recurrent = _recurrent_term(add, h, w_hh, b_hh)
    h_r, h_z, h_n = _split(add, recurrent, 3, hidden) if recurrent is not None else (None, None, None)
    r = add(aten.sigmoid.default, _plus(add, x_r, h_r))
    z = add(aten.sigmoid.default, _plus(add, x_z, h_z))
    n = add(aten.tanh.default, x_n if h_n is None else add(aten.add.Tensor, x_n, add(aten.mul.Tensor, r, h_n)))
    # (1 - z) * n + z * h with one product: n + z * (h - n); a zero h leaves n - z * n.
    if h is None:
        h = add(aten.sub.Tensor, n, add(aten.mul.Tensor, z, n))
    else:
        h = add(aten.add.Tensor, n, add(aten.mul.Tensor, z, add(aten.sub.Tensor, h, n)))
    return h, (h,)


def _direction(add: NodeBuilder, layer: _Layer, x, index: int, weights, reverse: bool):
    """Runs one direction of one layer over ``x``; returns the step outputs in time order and the final state."""
    w_ih, w_hh, b_ih, b_hh = weights
    hidden = w_hh.meta["val"].shape[1]
    projected = add(aten.linear.default, x, w_ih, b_ih)
    state = tuple(_initial_state(add, s, index) for s in layer.states)
    step = _lstm_step if layer.is_lstm else _gru_step
    steps = x.meta["val"].shape[layer.time_dim]
    outputs = [None] * steps
    for t in reversed(range(steps)) if reverse else range(steps):
        outputs[t], state = step(add, add(aten.select.int, projected, layer.time_dim, t), state, w_hh, b_hh, hidden)
    return outputs, state


def decompose_layer(add: NodeBuilder, node: torch.fx.Node) -> list[torch.fx.Node]:
    """The node's results (output sequence, then the final h and, for an LSTM, c of every layer)."""
    layer = _Layer(node)
    x, finals = layer.x, []
    for index in range(layer.layers):
        sequences = []
        for direction in range(layer.directions):
            slot = index * layer.directions + direction
            outputs, state = _direction(add, layer, x, slot, layer.weights(index, direction), reverse=direction == 1)
            sequences.append(add(aten.stack.default, outputs, layer.time_dim))
            finals.append(state)
        x = sequences[0] if len(sequences) == 1 else add(aten.cat.default, sequences, -1)
    return [x] + [add(aten.stack.default, [f[k] for f in finals], 0) for k in range(len(finals[0]))]


class DecomposeRecurrentLayers(AnnotationPass):
    """Writes nn.LSTM / nn.GRU layers as their unrolled cells, so that every gate and state is quantized."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return decompose_recurrent_layers(model, lambda node: quantizer.config_for(node) is not None)


def decompose_recurrent_layers(model: torch.fx.GraphModule, wants) -> int:
    """Replaces each aten.lstm.input / aten.gru.input node ``wants`` accepts; returns how many."""
    replaced = 0
    for node in list(model.graph.nodes):
        if node.op != "call_function" or op_name(node.target) not in _LAYERS:
            continue
        layer = _Layer(node)
        if not layer.applies(node) or not wants(node):
            continue
        results = decompose_layer(NodeBuilder(model.graph, node), node)
        for user in list(node.users):
            user.replace_all_uses_with(results[user.args[1]])
            model.graph.erase_node(user)
        model.graph.erase_node(node)
        for state in layer.states:  # zero states the arithmetic left out
            if _is_zero(state) and not state.users:
                model.graph.erase_node(state)
        replaced += 1
    return finish(model, replaced)
