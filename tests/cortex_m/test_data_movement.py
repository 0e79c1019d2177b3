"""cortex_m.transpose from the compiler's side: which permutes become it (dequantize -> permute -> quantize
with one set of parameters, a permute of int8 data, a layout permute left at an NHWC op's boundary), the
reasons for what stays portable, and its eager semantics against torch's permute of int8 values."""

from __future__ import annotations

import torch
from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower

from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.testing.edge_programs import calls

_TRANSPOSE = "cortex_m.transpose.default"
_PERMUTE = "aten.permute_copy.default"


class _Permute(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return x.permute(self.dims) + 1.0


class _ConvThenPermute(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return self.conv(x).permute(0, 2, 3, 1)


def _rewritten(model, inputs, quantize=True):
    config = EdgeCompileConfig(_check_ir_validity=False)
    if quantize:
        model = quantize_model(model, inputs, CortexMQuantizer())
        edge = to_edge_transform_and_lower(torch.export.export(model, inputs), compile_config=config)
    else:
        edge = to_edge(torch.export.export(model, inputs), compile_config=config)
    return CortexMPassManager(edge.exported_program()).transform()


def test_permute_between_quantizes_becomes_the_projects_transpose():
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3, 4, 5),)
    model = _Permute([0, 2, -1, 1]).eval()
    program = _rewritten(model, inputs)
    (transpose,) = calls(program, _TRANSPOSE)
    assert not calls(program, _PERMUTE)
    assert transpose.args[1] == [0, 2, 3, 1]  # negative dims wrapped for the kernel
    result = compile_model(model, inputs, "cortex-m55", quantize=True)
    reasons = {entry["op"]: entry["reason"] for entry in result.report["cpu_ops"]}
    assert reasons[_TRANSPOSE] == "cortex_m kernel (the project's: CMSIS-NN has none)"
    # Moving int8 values changes nothing: the rewritten program computes what the PT2E model does.
    quantized = quantize_model(model, inputs, CortexMQuantizer())
    torch.testing.assert_close(program.module()(*inputs), quantized(*inputs), atol=0, rtol=0)


def test_layout_permutes_around_an_nhwc_op_become_the_transpose():
    # conv2d's own layout permutes (int8 data) and the model's quantized permute after it all become
    # cortex_m.transpose; the model's one is dequantize -> permute -> quantize when CancelLayoutPermutes runs,
    # so the NHWC -> NCHW -> NHWC round trip stays (two int8 copies).
    inputs = (torch.randn(1, 3, 6, 6),)
    program = _rewritten(_ConvThenPermute().eval(), inputs)
    assert not calls(program, _PERMUTE)
    transposes = calls(program, _TRANSPOSE)
    assert [t.args[1] for t in transposes] == [[0, 2, 3, 1], [0, 3, 1, 2], [0, 2, 3, 1]]
    assert all(t.args[0].meta["val"].dtype == torch.int8 for t in transposes)


def test_float_and_rank_5_permutes_stay_portable_with_their_reasons():
    (float_permute,) = calls(_rewritten(_Permute([1, 0]).eval(), (torch.randn(3, 4),), quantize=False), _PERMUTE)
    assert float_permute.meta["cortex_m_reason"] == "its input is neither int8 data nor a dequantized int8 tensor"
    rank5 = _rewritten(_Permute([4, 3, 2, 1, 0]).eval(), (torch.randn(1, 2, 1, 3, 2),))
    (permute,) = calls(rank5, _PERMUTE)
    assert permute.meta["cortex_m_reason"] == "rank 5 is above the kernel's 4"
    assert not calls(rank5, _TRANSPOSE)


def test_eager_transpose_is_torchs_permute_of_the_int8_values():
    values = torch.randint(-128, 128, (2, 3, 4, 5), dtype=torch.int8)
    for perm in ([0, 2, 3, 1], [3, 2, 1, 0], [1, 0, 2, 3]):
        result = torch.ops.cortex_m.transpose(values, perm)
        assert result.dtype == torch.int8 and result.is_contiguous()
        assert torch.equal(result, values.permute(perm))
