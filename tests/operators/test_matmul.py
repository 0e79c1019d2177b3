"""Matrix products on the TOSA FP profile: mm, bmm, addmm, linear, matmul, scaled_dot_product_attention."""

import pytest
import torch
import torch.nn.functional as F

from etarm.compiler import compile_model
from etarm.operators.registry import rejection_reason
from etarm.testing.cpu_fallback import Fn
from etarm.testing.tosa_reference import assert_close_to_torch
from etarm.tosa.specification import TosaSpecification


def tosa_ops(run):
    return run.result.report["partitions"][0]["tosa_ops"]


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((9, 1), (1, 3))], ids=str)
def test_mm(shapes):
    torch.manual_seed(0)
    run = assert_close_to_torch(Fn(torch.mm), tuple(torch.randn(s) for s in shapes))
    assert tosa_ops(run).count("MATMUL") == 1


def test_bmm_is_a_single_matmul():
    torch.manual_seed(1)
    run = assert_close_to_torch(Fn(torch.bmm), (torch.randn(3, 2, 5), torch.randn(3, 5, 4)))
    assert tosa_ops(run) == ["MATMUL"]


@pytest.mark.parametrize(
    "self_shape,beta,alpha",
    [((5,), 1, 1), ((3, 5), 0.5, 2.0), ((3, 1), -1.0, 0.25)],
    ids=str,
)
def test_addmm(self_shape, beta, alpha):
    torch.manual_seed(2)
    inputs = (torch.randn(self_shape), torch.randn(3, 4), torch.randn(4, 5))
    assert_close_to_torch(Fn(lambda c, a, b: torch.addmm(c, a, b, beta=beta, alpha=alpha)), inputs)


def test_addmm_with_beta_zero_ignores_nan_in_self():
    torch.manual_seed(3)
    inputs = (torch.full((3, 5), float("nan")), torch.randn(3, 4), torch.randn(4, 5))
    assert_close_to_torch(Fn(lambda c, a, b: torch.addmm(c, a, b, beta=0)), inputs)


@pytest.mark.parametrize(
    "input_shape,bias",
    [((6,), True), ((3, 6), False), ((2, 1, 3, 6), True), ((2, 2, 1, 3, 6), False)],
    ids=str,
)
def test_linear_is_lowered_whole(input_shape, bias):
    torch.manual_seed(4)
    module = torch.nn.Linear(6, 5, bias=bias).eval()
    run = assert_close_to_torch(module, (torch.randn(input_shape),))
    assert run.result.report["partitions"][0]["aten_ops"] == ["aten.linear.default"]
    # The weight transpose is folded into the constant: no TRANSPOSE, one MATMUL.
    assert "TRANSPOSE" not in tosa_ops(run) and tosa_ops(run).count("MATMUL") == 1


def test_linear_with_runtime_weight():
    torch.manual_seed(5)
    inputs = (torch.randn(2, 3, 6), torch.randn(4, 6), torch.randn(4))
    run = assert_close_to_torch(Fn(lambda x, w, b: F.linear(x, w, b)), inputs)
    assert "TRANSPOSE" in tosa_ops(run)


@pytest.mark.parametrize(
    "shapes",
    [
        ((4,), (4,)),  # dot product, 0-d result
        ((4,), (4, 3)),  # vector @ matrix
        ((3, 4), (4,)),  # matrix @ vector
        ((4,), (2, 4, 3)),  # vector @ batched
        ((2, 3, 4), (4,)),  # batched @ vector
        ((2, 3, 4), (4, 5)),  # shared right operand: batch folds into rows
        ((3, 4), (2, 2, 4, 5)),  # shared left operand: tiled
        ((2, 1, 3, 4), (5, 4, 6)),  # both broadcast
        ((1, 2, 1, 3, 5), (2, 1, 3, 5, 1)),  # rank 5
    ],
    ids=str,
)
def test_matmul_broadcasting(shapes):
    torch.manual_seed(6)
    run = assert_close_to_torch(Fn(torch.matmul), tuple(torch.randn(s) for s in shapes))
    assert tosa_ops(run).count("MATMUL") == 1


def test_matmul_with_shared_right_operand_needs_no_copies():
    run = assert_close_to_torch(Fn(torch.matmul), (torch.randn(2, 3, 3, 4), torch.randn(4, 5)))
    assert "TILE" not in tosa_ops(run)


def sdpa(**options):
    return Fn(lambda q, k, v, *mask: F.scaled_dot_product_attention(q, k, v, *mask, **options))


@pytest.mark.parametrize(
    "q_shape,kv_length,value_depth,options",
    [
        ((1, 2, 3, 4), 5, 6, {}),
        ((2, 3, 8), 3, 8, {}),
        ((2, 1, 2, 5, 4), 7, 3, {"scale": 0.3}),
        ((1, 2, 3, 4), 5, 6, {"is_causal": True}),  # L < S: top-left aligned
        ((1, 2, 6, 4), 3, 4, {"is_causal": True}),  # L > S
        ((2, 6, 3, 4), 3, 4, {"enable_gqa": True, "kv_heads": 2, "is_causal": True}),
    ],
    ids=str,
)
def test_scaled_dot_product_attention(q_shape, kv_length, value_depth, options):
    torch.manual_seed(7)
    options = dict(options)
    kv_heads = options.pop("kv_heads", q_shape[-3] if len(q_shape) >= 3 else None)
    batch = q_shape[:-3] + (kv_heads,) if kv_heads is not None else q_shape[:-2]
    q = torch.randn(q_shape)
    k = torch.randn(batch + (kv_length, q_shape[-1]))
    v = torch.randn(batch + (kv_length, value_depth))
    run = assert_close_to_torch(sdpa(**options), (q, k, v))
    assert run.result.report["partitions"][0]["aten_ops"] == ["aten.scaled_dot_product_attention.default"]
    assert tosa_ops(run).count("MATMUL") == 2


@pytest.mark.parametrize(
    "mask_kind,mask_shape,kv_heads",
    [("bool", (3, 5), 2), ("bool", (2, 1, 1, 5), 2), ("float", (1, 2, 3, 5), 2), ("float", (2, 4, 3, 5), 1)],
    ids=str,
)
def test_scaled_dot_product_attention_with_mask(mask_kind, mask_shape, kv_heads):
    """Masks broadcast over batch/heads; with grouped-query attention too (kv_heads < 4 query heads)."""
    torch.manual_seed(8)
    heads = mask_shape[1] if len(mask_shape) == 4 and mask_shape[1] > 2 else 2
    q, k, v = torch.randn(2, heads, 3, 4), torch.randn(2, kv_heads, 5, 4), torch.randn(2, kv_heads, 5, 6)
    if mask_kind == "bool":
        mask = torch.rand(mask_shape) > 0.3
        mask[..., 0] = True
    else:
        mask = torch.randn(mask_shape)
    assert_close_to_torch(sdpa(enable_gqa=kv_heads != heads), (q, k, v, mask))


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_scaled_dot_product_attention_fully_masked_rows_give_zeros(mask_kind):
    """Torch returns zeros (not NaN) for a query whose keys are all masked out."""
    torch.manual_seed(9)
    q, k, v = torch.randn(1, 2, 3, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 6)
    keep = torch.ones(3, 5, dtype=torch.bool)
    keep[1] = False
    mask = keep if mask_kind == "bool" else torch.zeros(3, 5).masked_fill(~keep, float("-inf"))
    run = assert_close_to_torch(sdpa(), (q, k, v, mask))
    assert (run.tosa_outputs[0][:, :, 1] == 0).all()


def test_float16_products_accumulate_in_float32():
    """MATMUL writes FP32 and casts once, as torch accumulates half products in float on CPU."""
    torch.manual_seed(10)

    class Products(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(32, 8)

        def forward(self, x, y, q):
            return torch.mm(x, y), self.linear(x), F.scaled_dot_product_attention(q, q, q)

    inputs = (torch.randn(5, 32), torch.randn(32, 7), torch.randn(1, 2, 4, 8))
    run = assert_close_to_torch(Products().half().eval(), tuple(t.half() for t in inputs), atol=2e-3, rtol=2e-3)
    assert "CAST" in tosa_ops(run)


def test_integer_matmul_stays_on_cpu_with_a_reason():
    a, b = torch.randint(-5, 5, (3, 4), dtype=torch.int32), torch.randint(-5, 5, (4, 2), dtype=torch.int32)
    report = compile_model(Fn(torch.matmul), (a, b), "TOSA-1.0+FP").report
    reasons = [entry["reason"] for entry in report["cpu_ops"] if entry["op"].startswith("aten.mm")]
    assert reasons == ["self dtype torch.int32 is not supported (only float32/float16)"]


def _aten_node(fn, inputs, target):
    program = torch.export.export(Fn(fn), inputs, strict=False)
    (node,) = [n for n in program.graph.nodes if n.op == "call_function" and n.target == target]
    return node


@pytest.mark.parametrize(
    "options,shapes,expected",
    [
        ({"dropout_p": 0.1}, ((1, 2, 3, 4), (1, 2, 3, 4)), "dropout_p=0.1"),
        ({"dropout_p": 0.5, "is_causal": True}, ((2, 3, 4), (2, 5, 4)), "dropout_p=0.5"),
    ],
    ids=["dropout", "dropout-causal"],
)
def test_scaled_dot_product_attention_rejections(options, shapes, expected):
    """Rejected attention is decomposed by ExecuTorch instead of kept whole: check() must say why."""
    q_shape, kv_shape = shapes
    inputs = (torch.randn(q_shape), torch.randn(kv_shape), torch.randn(kv_shape))
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **options)
    node = _aten_node(fn, inputs, torch.ops.aten.scaled_dot_product_attention.default)
    reason = rejection_reason(node, TosaSpecification.create_from_string("TOSA-1.0+FP"))
    assert reason is not None and expected in reason
