"""cortex_m.quantized_minimum / quantized_maximum from the compiler's side: which nodes become them, the
rescale arguments (scale exactly 1 when an operand shares the output's parameters), the reasons for what
stays portable, and their eager integer semantics against the PT2E model and a float reference."""

from __future__ import annotations

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower

import etarm.cortex_m.ops  # noqa: F401  (defines torch.ops.cortex_m)
from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.pte import cpu_operators
from etarm.testing.edge_programs import calls

_MIN, _MAX = "cortex_m.quantized_minimum.default", "cortex_m.quantized_maximum.default"


class _MinMax(torch.nn.Module):
    def forward(self, x, y):
        return torch.maximum(torch.minimum(x, y), x * 0.5 - 0.25)


_INPUTS = (torch.randn(2, 3, 8), torch.randn(8))


def test_minimum_and_maximum_become_cortex_m_kernels():
    result = compile_model(_MinMax().eval(), _INPUTS, "cortex-m55", quantize=True)
    ops = cpu_operators(result.pte)
    assert "cortex_m::quantized_minimum.out" in ops and "cortex_m::quantized_maximum.out" in ops
    assert not [op for op in ops if "minimum" in op and op.startswith("aten")]
    assert not [op for op in ops if "maximum" in op and op.startswith("aten")]
    reasons = {entry["op"]: entry["reason"] for entry in result.report["cpu_ops"]}
    assert reasons[_MIN] == reasons[_MAX] == "cortex_m kernel (the project's: CMSIS-NN has none)"


def test_shared_parameters_are_a_scale_of_one_and_eager_matches_the_pt2e_model():
    quantized = quantize_model(_MinMax().eval(), _INPUTS, CortexMQuantizer())
    edge = to_edge_transform_and_lower(
        torch.export.export(quantized, _INPUTS), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    program = CortexMPassManager(edge.exported_program()).transform()
    # The quantizer makes the operands and result share parameters: the integers compare as they are.
    for node in (*calls(program, _MIN), *calls(program, _MAX)):
        a_zp, a_mult, a_shift, b_zp, b_mult, b_shift, out_zp = (*node.args[1:4], *node.args[5:9])
        assert (a_mult, a_shift, b_mult, b_shift) == (2**30, 1, 2**30, 1) and a_zp == b_zp == out_zp
    expected = quantized(*_INPUTS)
    step = float(torch.diff(expected.unique()).min())
    torch.testing.assert_close(program.module()(*_INPUTS), expected, atol=step * 1.01, rtol=0)


@pytest.mark.parametrize("op, pick", [("quantized_minimum", torch.minimum), ("quantized_maximum", torch.maximum)])
def test_different_parameters_are_requantized_into_the_output(op, pick):
    """Operands at other scales (one larger than the output's): the rounded extremum of the real values."""
    generator = torch.Generator().manual_seed(0)
    a = torch.randint(-128, 128, (4, 16), dtype=torch.int8, generator=generator)
    b = torch.randint(-128, 128, (16,), dtype=torch.int8, generator=generator)
    # No value lands on a rounding tie, where a float reference could round either way.
    (sa, za), (sb, zb), (so, zo) = (0.05, 3), (0.004, -20), (0.0213, -5)
    args = [a, za, *multiplier_and_shift(sa / so, 29), b, zb, *multiplier_and_shift(sb / so, 29), zo]
    got = getattr(torch.ops.cortex_m, op)(*args)
    real = pick((a.double() - za) * sa, (b.double() - zb) * sb)
    want = (torch.floor(real / so + 0.5) + zo).clamp(-128, 127).to(torch.int8)  # round half up, once
    assert torch.equal(got, want)


def test_float_minimum_stays_portable_with_its_reason():
    edge = to_edge(
        torch.export.export(_MinMax().eval(), _INPUTS), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    program = CortexMPassManager(edge.exported_program()).transform()
    (minimum,) = calls(program, "aten.minimum.default")
    assert "not a dequantized int8 tensor" in minimum.meta["cortex_m_reason"]
