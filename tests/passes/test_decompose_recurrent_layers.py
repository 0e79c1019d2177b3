"""DecomposeRecurrentLayers: nn.LSTM / nn.GRU are unrolled into their cells before annotation, compute what
torch does, and quantized run whole in one partition on TOSA INT and both Ethos-U families."""

import pytest
import torch
from torch import nn

from etarm.passes.decompose_recurrent_layers import decompose_recurrent_layers
from etarm.testing.npu_runs import assert_all_on_npu
from etarm.testing.quantized_reference import assert_quantized_close


class Recurrent(nn.Module):
    """The output sequence and the final states, as a model returning all of them would."""

    def __init__(self, kind, **options):
        super().__init__()
        self.layer = kind(4, 6, **options)

    def forward(self, x, *state):
        if not state:
            return self.layer(x)
        return self.layer(x, state if len(state) == 2 else state[0])


def _flat(results):
    return torch.utils._pytree.tree_leaves(results)


def _decomposed(module, inputs):
    model = torch.export.export(module, inputs, strict=False).module()
    count = decompose_recurrent_layers(model, lambda node: True)
    return count, model


# kind, options, input shape (time 5, batch 2 unless batch_first; 2-D: unbatched)
FLOAT_CASES = {
    "lstm_2_layers": (nn.LSTM, dict(num_layers=2), (5, 2, 4)),
    "lstm_batch_first": (nn.LSTM, dict(batch_first=True), (2, 5, 4)),
    "lstm_bidirectional": (nn.LSTM, dict(num_layers=2, bidirectional=True, batch_first=True), (2, 5, 4)),
    "lstm_no_bias": (nn.LSTM, dict(bias=False), (5, 2, 4)),
    "lstm_unbatched": (nn.LSTM, dict(batch_first=True), (5, 4)),
    "gru_2_layers": (nn.GRU, dict(num_layers=2, batch_first=True), (2, 5, 4)),
    "gru_time_first": (nn.GRU, dict(), (5, 2, 4)),
    "gru_bidirectional": (nn.GRU, dict(bidirectional=True), (5, 2, 4)),
    "gru_no_bias": (nn.GRU, dict(bias=False, batch_first=True), (2, 5, 4)),
}


@pytest.mark.parametrize("name", FLOAT_CASES)
def test_the_unrolled_cells_compute_what_torch_does(name):
    kind, options, shape = FLOAT_CASES[name]
    torch.manual_seed(0)
    module, x = Recurrent(kind, **options).eval(), torch.randn(shape)
    count, model = _decomposed(module, (x,))
    ops = {str(n.target) for n in model.graph.nodes if n.op == "call_function"}
    assert count == 1 and not {"aten.lstm.input", "aten.gru.input"} & ops
    # The zero initial state is left out of the arithmetic (and of the graph).
    assert "aten.zeros.default" not in ops
    for got, want in zip(_flat(model(x)), _flat(module(x)), strict=True):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("kind", [nn.LSTM, nn.GRU])
def test_a_given_initial_state_enters_the_recurrence(kind):
    torch.manual_seed(1)
    module = Recurrent(kind, num_layers=2, batch_first=True).eval()
    states = (torch.randn(2, 3, 6), torch.randn(2, 3, 6))[: 2 if kind is nn.LSTM else 1]
    inputs = (torch.randn(3, 4, 4), *states)
    count, model = _decomposed(module, inputs)
    assert count == 1
    for got, want in zip(_flat(model(*inputs)), _flat(module(*inputs)), strict=True):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-5)


def test_projections_and_training_dropout_stay_whole():
    x = torch.randn(5, 2, 4)
    count, _ = _decomposed(Recurrent(nn.LSTM, proj_size=3).eval(), (x,))
    assert count == 0
    count, _ = _decomposed(Recurrent(nn.GRU, num_layers=2, dropout=0.5).train(), (x,))
    assert count == 0


class LastStep(nn.Module):
    """A classifier head on the last step, as keyword spotters use recurrent layers."""

    def __init__(self, kind, batch_first, **options):
        super().__init__()
        self.batch_first = batch_first
        self.layer = kind(4, 8, batch_first=batch_first, **options)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        sequence, _ = self.layer(x)
        return self.head(sequence[:, -1] if self.batch_first else sequence[-1])


QUANTIZED_CASES = {
    "lstm_batch_first": (LastStep(nn.LSTM, True, num_layers=2), (1, 4, 4)),
    "gru_time_first": (LastStep(nn.GRU, False), (4, 1, 4)),
}


@pytest.mark.parametrize("name", QUANTIZED_CASES)
def test_quantized_layers_run_whole_on_tosa_int(name):
    module, shape = QUANTIZED_CASES[name]
    torch.manual_seed(2)
    assert_quantized_close(module.eval(), (torch.randn(shape),), max_lsb=1.0)


@pytest.mark.parametrize("kind, target", [(nn.LSTM, "ethos-u55-128"), (nn.GRU, "ethos-u85-256")])
def test_quantized_layers_run_whole_on_the_npu(kind, target):
    torch.manual_seed(3)
    assert_all_on_npu(LastStep(kind, False).eval(), (torch.randn(4, 1, 4),), target)
