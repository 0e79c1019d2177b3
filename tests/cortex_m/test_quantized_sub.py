"""cortex_m.quantized_sub from the compiler's side: int8 and int16 subtractions (broadcast, a conv's result minus its
input) become the op, within one output step of the PT2E model; a GRU, whose update h = n + z * (h - n) subtracts,
runs on cortex_m ops and integer data movement only."""

from __future__ import annotations

import torch

from etarm.compiler import quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program

_SUB = "cortex_m.quantized_sub.default"


class _Differences(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 3, 1)

    def forward(self, x, y):
        return x - y, self.conv(x) - x, x - y[:, :1]


class _Gru(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(6, 16, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


def _within_one_step(program, quantized, inputs):
    for got, expected in zip(program.module()(*inputs), quantized(*inputs)):
        step = float(torch.diff(expected.unique()).min())
        torch.testing.assert_close(got, expected, atol=step * 1.01, rtol=0)


def _check(quantizer, dtype):
    torch.manual_seed(9)
    model, inputs = _Differences().eval(), (torch.randn(1, 3, 4, 5), 2 * torch.randn(1, 3, 4, 5))
    quantized = quantize_model(model, inputs, quantizer)
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    subs = calls(program, _SUB)
    assert len(subs) == 3 and all(s.meta["val"].dtype == dtype for s in subs)
    assert not calls(program, "aten.sub.Tensor")
    _within_one_step(program, quantized, inputs)


def test_int8_subtractions_become_cortex_m_ops():
    _check(CortexMQuantizer(), torch.int8)


def test_int16_subtractions_become_cortex_m_ops():
    _check(CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config()), torch.int16)


def test_a_gru_runs_on_cortex_m_ops_and_integer_moves():
    torch.manual_seed(10)
    model, inputs = _Gru().eval(), (torch.randn(1, 4, 6),)
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    program = CortexMPassManager(edge_program(quantized, inputs)).transform()
    float_ops = [
        str(n.target)
        for n in program.graph.nodes
        if n.op == "call_function"
        and n.meta["val"].dtype == torch.float32
        and not any(name in str(n.target) for name in ("quantize", "cortex_m"))  # boundaries, the CPU record
    ]
    assert float_ops == [], float_ops
    assert len(calls(program, _SUB)) == 4  # one per step
    _within_one_step(program, quantized, inputs)
