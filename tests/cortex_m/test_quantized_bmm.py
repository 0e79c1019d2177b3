"""cortex_m.quantized_bmm from the compiler's side: torch.bmm / torch.matmul of two quantized activations become it in
int8 and a16w8, k^T is read without a transpose, its multiplier and shift are the TOSA lowering's (the eager op equals
TOSA MATMUL + RESCALE on the reference model bit for bit), it is within one step of the PT2E model, and what stays
portable says why. Attention: scaled_dot_product_attention split before annotation (SplitAttention), its scaling of
the queries one rescale (QuantizedScalingsAsCortexM)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import tosa_serializer as ts
from etarm.compiler import compile_model, quantize_model
from etarm.cortex_m import CortexMPassManager, CortexMQuantizer
from etarm.cortex_m.passes.quantized_bmm_as_cortex_m import _requantization
from etarm.cortex_m.requantize import multiplier_and_shift
from etarm.lowering import quantized
from etarm.lowering.matmul import matmul3
from etarm.pte import cpu_operators
from etarm.quantization.quantization_config import get_symmetric_a16w8_quantization_config
from etarm.testing.edge_programs import calls, edge_program
from etarm.testing.tosa_graphs import graph_input, int16_graph
from etarm.tosa.reference_model import run_tosa
from etarm.tosa_ir.quant_params import qparams_of
from executorch.exir import EdgeCompileConfig, to_edge

_BMM = "cortex_m.quantized_bmm.default"


class _Bmm(torch.nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


class _Attention(torch.nn.Module):
    """Two heads: softmax(q @ k^T) @ v on rank-4 tensors (expand/view + bmm in the edge program)."""

    def forward(self, q, k, v):
        return torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-2, -1)), dim=-1), v)


class _RowsTimesActivation(torch.nn.Module):
    def forward(self, x, y):
        return torch.matmul(x, y)  # [2, 3, 8] @ [8, 5]: a view and an mm of two activations


def _randn(*shape, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


_BMM_INPUTS = (_randn(2, 3, 19, seed=1), _randn(2, 19, 5, seed=2))
_ATTENTION_INPUTS = tuple(_randn(1, 2, 6, 8, seed=seed) for seed in (3, 4, 5))


@pytest.fixture(autouse=True)
def _seeded():
    torch.manual_seed(0)  # the models' weights and the inputs drawn in the tests


def _quantizer(a16w8: bool) -> CortexMQuantizer:
    quantizer = CortexMQuantizer()
    return quantizer.set_global(get_symmetric_a16w8_quantization_config()) if a16w8 else quantizer


def _rewritten(model, inputs, a16w8=False):
    """The PT2E model, the parameters of each quantize by its input's name, the rewritten program."""
    quantized_model = quantize_model(model.eval(), inputs, _quantizer(a16w8))
    before = edge_program(quantized_model, inputs)
    quantizes = {n.args[0].name: qparams_of(n) for n in before.graph.nodes if "quantize_per_tensor" in str(n.target)}
    return quantized_model, quantizes, CortexMPassManager(before).transform()


def _within_steps(program, quantized_model, inputs, steps: int = 1):
    expected = quantized_model(*inputs)
    step = float(torch.diff(expected.unique()).min())
    torch.testing.assert_close(program.module()(*inputs), expected, atol=step * (steps + 0.01), rtol=0)


# Through a softmax: the softmax kernels are within one step of the exact softmax rather than PT2E's rounding of it, and
# the product with v sums those differences over the keys (measured: at most 2 output steps here).
_THROUGH_SOFTMAX = 2


def test_bmm_is_the_projects_kernel_between_the_quantizes():
    result = compile_model(_Bmm().eval(), _BMM_INPUTS, "cortex-m55", quantize=True)
    assert cpu_operators(result.pte) == [
        "cortex_m::cpu_variant.out",
        "quantized_decomposed::quantize_per_tensor.out",
        "cortex_m::quantized_bmm.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    ]
    reasons = {entry["op"]: entry["reason"] for entry in result.report["cpu_ops"]}
    assert reasons[_BMM] == "cortex_m kernel (the project's: CMSIS-NN has none)"


@pytest.mark.parametrize("a16w8", [False, True], ids=["a8w8", "a16w8"])
def test_bmm_scale_and_semantics(a16w8):
    quantized_model, quantizes, program = _rewritten(_Bmm(), _BMM_INPUTS, a16w8)
    (bmm,) = calls(program, _BMM)
    a, a_zp, _b, b_zp, transposed, out_zp, multiplier, shift = bmm.args
    pa, pb, po = quantizes["a"], quantizes["b"], quantizes["aten_bmm_default"]
    dtype = torch.int16 if a16w8 else torch.int8
    assert a.meta["val"].dtype == dtype and not transposed
    assert (a_zp, b_zp, out_zp) == (pa.zero_point, pb.zero_point, po.zero_point)
    assert (multiplier, shift) == _requantization(dtype, float(pa.scale) * float(pb.scale) / float(po.scale))
    if a16w8:
        assert a_zp == b_zp == out_zp == 0 and multiplier % (1 << 16) == 0  # TOSA's 16-bit int48 multiplier
    _within_steps(program, quantized_model, _BMM_INPUTS)


@pytest.mark.parametrize("a16w8", [False, True], ids=["a8w8", "a16w8"])
def test_attention_reads_k_transposed_and_every_op_is_cortex_m(a16w8):
    quantized_model, _, program = _rewritten(_Attention(), _ATTENTION_INPUTS, a16w8)
    scores, context = calls(program, _BMM)
    assert scores.args[4] is True and context.args[4] is False
    assert not calls(program, "cortex_m.transpose.default")  # k^T needs no transpose op
    assert not calls(program, "aten.bmm.default") and not calls(program, "aten.expand_copy.default")
    softmax = "cortex_m.quantized_softmax_int16.default" if a16w8 else "cortex_m.quantized_softmax.default"
    assert len(calls(program, softmax)) == 1
    float_ops = [
        n.target.__name__
        for n in program.graph.nodes
        if n.op == "call_function" and "cortex_m" not in str(n.target) and "quantize" not in str(n.target)
    ]
    assert set(float_ops) <= {"aten.view_copy.default"}, float_ops  # views on the integers only
    _within_steps(program, quantized_model, _ATTENTION_INPUTS, _THROUGH_SOFTMAX)


def test_matmul_by_an_activation_matrix_is_an_mm_of_rank_two():
    inputs = (torch.randn(2, 3, 8), torch.randn(8, 5))
    quantized_model, _, program = _rewritten(_RowsTimesActivation(), inputs)
    (bmm,) = calls(program, _BMM)
    assert bmm.args[0].meta["val"].dim() == 2 and not calls(program, "aten.mm.default")
    _within_steps(program, quantized_model, inputs)


def test_batch_of_one_broadcasts_in_the_kernel():
    inputs = (torch.randn(1, 4, 6), torch.randn(3, 6, 5))
    quantized_model, _, program = _rewritten(_RowsTimesActivation(), inputs)
    (bmm,) = calls(program, _BMM)
    assert list(bmm.args[0].meta["val"].shape) == [1, 4, 6]  # the expand to 3 batches went
    assert not calls(program, "aten.expand_copy.default")
    _within_steps(program, quantized_model, inputs)


def _tosa_matmul_rescale(a, b, a_zp, b_zp, out_zp, scale):
    """TOSA MATMUL of the integer operands into int32 (int48 for int16) and one RESCALE, on the reference model."""
    dtype = ts.DType.INT16 if a.dtype == torch.int16 else ts.DType.INT8
    graph = int16_graph()
    ta, tb = graph_input(graph, tuple(a.shape), dtype, "a"), graph_input(graph, tuple(b.shape), dtype, "b")
    zero_points = (
        graph.const([a_zp], dtype, shape=(1,), stem="a_zp"),
        graph.const([b_zp], dtype, shape=(1,), stem="b_zp"),
    )
    product = matmul3(graph, ta, tb, zero_points)
    graph.mark_output(quantized.rescale(graph, product, scale, dtype, output_zp=out_zp, scale32=dtype == ts.DType.INT8))
    (out,) = run_tosa(graph.serialize(), [a.numpy(), b.numpy()])
    return torch.from_numpy(np.asarray(out).reshape(a.shape[0], a.shape[1], b.shape[2]).astype(np.int64))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16])
@pytest.mark.parametrize("scale", [3.1e-4, 0.0123, 0.71, 2.5])
def test_eager_op_is_tosa_matmul_and_rescale_bit_for_bit(dtype, scale):
    generator = torch.Generator().manual_seed(int(scale * 1000))
    info = torch.iinfo(dtype)
    low = -info.max if dtype == torch.int16 else info.min
    a = torch.randint(low, info.max + 1, (2, 5, 37), generator=generator, dtype=dtype)
    b = torch.randint(low, info.max + 1, (2, 37, 9), generator=generator, dtype=dtype)
    if dtype == torch.int16:
        scale = scale * 1e-4  # int16 sums are about 2**16 times larger
    zero_points = (-17, 101, 9) if dtype == torch.int8 else (0, 0, 0)
    multiplier, shift = _requantization(dtype, scale)
    want = _tosa_matmul_rescale(a, b, *zero_points, scale)
    if dtype == torch.int16:
        want = want.clamp(min=-32767)  # the kernels never write -32768 (a16w8's symmetric range)
    for transposed in (False, True):
        rhs = b.transpose(1, 2).contiguous() if transposed else b
        got = torch.ops.cortex_m.quantized_bmm(
            a, zero_points[0], rhs, zero_points[1], transposed, zero_points[2], multiplier, shift
        )
        assert got.dtype == dtype
        assert torch.equal(got.to(torch.int64), want)


def test_float_bmm_stays_portable_with_its_reason():
    edge = to_edge(
        torch.export.export(_Bmm().eval(), _BMM_INPUTS), compile_config=EdgeCompileConfig(_check_ir_validity=False)
    )
    program = CortexMPassManager(edge.exported_program()).transform()
    (bmm,) = calls(program, "aten.bmm.default")
    assert bmm.meta["cortex_m_reason"] == "an operand is not a dequantized int8 or int16 tensor (float, or a constant)"


def test_sums_too_long_for_the_accumulator_stay_portable_with_their_reason():
    inputs = (torch.randn(1, 1, 33026), torch.randn(1, 33026, 1))
    _, _, program = _rewritten(_Bmm(), inputs)
    (bmm,) = calls(program, "aten.bmm.default")
    assert bmm.meta["cortex_m_reason"] == "its sums of 33026 products may overflow the accumulator (at most 33025)"


class _SelfAttention(torch.nn.Module):
    """Two heads of torch's scaled_dot_product_attention between linears, as vision transformers write it."""

    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.qkv, self.proj, self.heads = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim), heads

    def forward(self, x):
        batch, tokens, dim = x.shape
        qkv = self.qkv(x).reshape(batch, tokens, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        attended = torch.nn.functional.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])
        return self.proj(attended.transpose(1, 2).reshape(batch, tokens, dim))


@pytest.mark.parametrize("a16w8", [False, True], ids=["a8w8", "a16w8"])
def test_scaled_dot_product_attention_is_split_into_cortex_m_ops(a16w8):
    inputs = (torch.randn(1, 6, 16),)
    quantized_model, _, program = _rewritten(_SelfAttention(), inputs, a16w8)
    scores, context = calls(program, _BMM)
    assert scores.args[4] is True and context.args[4] is False
    (scaling,) = calls(program, "cortex_m.quantized_clamp.default")  # the queries' 1/sqrt(d)
    assert scaling.args[0].meta["val"].dtype == (torch.int16 if a16w8 else torch.int8)
    softmax = "cortex_m.quantized_softmax_int16.default" if a16w8 else "cortex_m.quantized_softmax.default"
    assert len(calls(program, softmax)) == 1
    assert not calls(program, "aten.mul.Tensor") and not calls(program, "aten._softmax.default")
    assert not calls(program, "aten.bmm.default")
    _within_steps(program, quantized_model, inputs, _THROUGH_SOFTMAX)


class _Scaled(torch.nn.Module):
    def __init__(self, factor: float):
        super().__init__()
        self.linear, self.factor = torch.nn.Linear(8, 8), factor

    def forward(self, x):
        return torch.softmax(self.linear(x) * self.factor, dim=-1)


def test_a_positive_scaling_is_one_rescale():
    inputs = (torch.randn(2, 8),)
    quantized_model, quantizes, program = _rewritten(_Scaled(0.37), inputs)
    (scaling,) = calls(program, "cortex_m.quantized_clamp.default")
    _, x_zp, multiplier, shift, out_zp, low, high = scaling.args
    x, out = quantizes["aten_addmm_default"], quantizes["aten_mul_tensor"]
    assert (x_zp, out_zp, low, high) == (x.zero_point, out.zero_point, -128, 127)
    factor = torch.tensor(0.37).item()  # the program's float32 constant
    assert (multiplier, shift) == multiplier_and_shift(factor * float(x.scale) / float(out.scale), 30)
    assert not calls(program, "aten.mul.Tensor")
    _within_steps(program, quantized_model, inputs, _THROUGH_SOFTMAX)


def test_a_negative_scaling_stays_portable_with_its_reason():
    _, _, program = _rewritten(_Scaled(-0.5), (torch.randn(2, 8),))
    (mul,) = calls(program, "aten.mul.Tensor")
    assert mul.meta["cortex_m_reason"] == "a product with -0.5: a rescale keeps the sign (only positive numbers)"


class _ReluOfProduct(torch.nn.Module):
    def forward(self, a, b):
        return torch.relu(torch.bmm(a, b))


@pytest.mark.parametrize("a16w8", [False, True], ids=["a8w8", "a16w8"])
def test_a_fused_activation_is_a_clamp_of_the_products_integers(a16w8):
    quantized_model, _, program = _rewritten(_ReluOfProduct(), _BMM_INPUTS, a16w8)
    assert len(calls(program, _BMM)) == 1 and not calls(program, "aten.relu.default")
    clamps = calls(program, "cortex_m.quantized_clamp.default")
    if a16w8:  # symmetric int16: the relu's 0 is inside the output's range, a clamp at scale 1 from 0
        (clamp,) = clamps
        assert clamp.args[1:] == (0, 1 << 30, 1, 0, 0, 32767)
    else:  # the relu's output starts at its zero point -128: the int8 range already holds it
        assert not clamps
    _within_steps(program, quantized_model, _BMM_INPUTS)


class _BroadcastHeads(torch.nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)  # [2, 1, 5, 8] @ [1, 3, 8, 4]: both operands expanded to [2, 3, ...]


def test_rank_four_broadcasting_keeps_its_expands_on_the_integers():
    inputs = (torch.randn(2, 1, 5, 8), torch.randn(1, 3, 8, 4))
    quantized_model, _, program = _rewritten(_BroadcastHeads(), inputs)
    assert len(calls(program, _BMM)) == 1
    expands = calls(program, "aten.expand_copy.default")
    assert len(expands) == 2 and all(e.meta["val"].dtype == torch.int8 for e in expands)
    assert not calls(program, "dim_order_ops._clone_dim_order.default")
    _within_steps(program, quantized_model, inputs)
