"""Per-operator coverage matrix: every operator of the TOSA INT set on ethos-u55-128 and ethos-u85-256.

Each registry target whose visitor lowers INT has a small quantized module
(python/etarm/testing/op_samples.py), compiled with int8 for both NPUs. The quantizer
keeps composites whole (``exact_composites=True``) so that each operator's own lowering
is what Vela meets; the U55 default splits norms and attention into operators listed
here (tests/operators/test_int_normalization.py, test_int_attention.py). ``EXPECTED``
states the outcome of every (operator, NPU):

- ``NPU``: it compiles through Vela with every compute op on the NPU: the operator's
  nodes are in Ethos-U partitions, Vela counts no CPU operators, and (when every operator
  of the sample is expected there) only the boundary quantize/dequantize nodes stay on
  CPU;
- ``"cpu: <reason>"``: the partitioner keeps the operator's nodes on CPU, with a reason
  containing ``<reason>``.

A change in either direction fails, as does a registered INT operator without an entry
(new operators must be classified) or an entry for an operator no longer registered. The
compile must never fail: an operator an NPU cannot run stays on CPU with its reason.
"""

from __future__ import annotations

import functools

import pytest

from etarm.compiler import compile_model
from etarm.operators.registry import registered_targets
from etarm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from etarm.testing.op_samples import SAMPLES, OpSample

TARGETS = ("ethos-u55-128", "ethos-u85-256")
NPU = "npu"
QDQ = frozenset({"quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.default"})

# Reasons (substrings of the report's) shared by several operators.
BOOL_U55 = "cpu: Ethos-U55/U65 have no boolean tensors"
INT64 = "cpu: is int64: Ethos-U partitions read and write"
NEEDS_FP = "cpu: needs the TOSA FP profile"
NOT_QUANTIZED = "cpu: is not quantized"
GATHER_U55 = "cpu: needs TOSA GATHER"

# operator: (ethos-u55-128, ethos-u85-256)
EXPECTED: dict[str, tuple[str, str]] = {}


def _expect(outcomes: tuple[str, str], *ops: str) -> None:
    for op in ops:
        assert op not in EXPECTED, op
        EXPECTED[op] = outcomes


_expect(
    (NPU, NPU),
    # arithmetic
    "aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor", "aten.sub.Scalar", "aten.mul.Tensor", "aten.mul.Scalar",
    "aten.maximum.default", "aten.minimum.default", "aten.div.Scalar", "aten.remainder.Scalar", "aten.fmod.Scalar",
    "aten.pow.Tensor_Scalar", "aten.pow.Scalar",
    # unary functions: int8 TABLEs and integer ops
    "aten.exp.default", "aten.expm1.default", "aten.tanh.default", "aten.sigmoid.default", "aten.gelu.default",
    "aten.hardswish.default", "aten.hardsigmoid.default", "aten.elu.default", "aten.celu.default",
    "aten.leaky_relu.default", "aten.softplus.default", "aten.silu.default", "aten.mish.default", "aten.erf.default",
    "aten.sin.default", "aten.cos.default", "aten.tan.default", "aten.atan.default", "aten.sinh.default",
    "aten.cosh.default", "aten.asinh.default", "aten.sign.default", "aten.floor.default", "aten.ceil.default",
    "aten.round.default", "aten.round.decimals", "aten.trunc.default", "aten.abs.default", "aten.neg.default",
    "aten.relu.default", "aten.hardtanh.default", "aten.clamp.default", "aten.log.default", "aten.log1p.default",
    "aten.log2.default", "aten.log10.default", "aten.sqrt.default", "aten.rsqrt.default", "aten.reciprocal.default",
    "aten.acosh.default", "aten.asin.default", "aten.acos.default", "aten.atanh.default", "aten.erfinv.default",
    "aten.logit.default",
    # shifts of int32 data
    "aten.__lshift__.Tensor", "aten.__lshift__.Scalar", "aten.__rshift__.Tensor", "aten.__rshift__.Scalar",
    "aten.bitwise_left_shift.Tensor", "aten.bitwise_left_shift.Tensor_Scalar", "aten.bitwise_left_shift.Scalar_Tensor",
    "aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar",
    "aten.bitwise_right_shift.Scalar_Tensor",
    # reductions
    "aten.sum.dim_IntList", "aten.sum.default", "aten.mean.dim", "aten.mean.default", "aten.var.correction",
    "aten.std.correction", "aten.cumsum.default", "aten.amax.default", "aten.amin.default", "aten.max.dim",
    "aten.min.dim", "aten.max.default", "aten.min.default",
    # normalization, softmax
    "aten.native_layer_norm.default", "aten.native_group_norm.default", "aten.rms_norm.default",
    "aten._native_batch_norm_legit_no_training.default", "aten._softmax.default", "aten._log_softmax.default",
    "aten.scaled_dot_product_attention.default",
    # weighted layers, matrix products
    "aten.convolution.default", "aten.linear.default", "aten.mm.default", "aten.bmm.default", "aten.matmul.default",
    "aten.addmm.default",
    # pooling (stride-4 adaptive pooling on U55: stride 1 + subsampling), nearest resizes
    "aten.avg_pool2d.default", "aten.max_pool2d_with_indices.default", "aten._adaptive_avg_pool2d.default",
    "aten.avg_pool1d.default", "aten.max_pool1d.default", "aten.upsample_nearest2d.vec",
    "aten._upsample_nearest_exact2d.vec",
    # data movement
    "aten.view_copy.default", "aten.permute_copy.default", "aten.squeeze_copy.dims", "aten.unsqueeze_copy.default",
    "aten.expand_copy.default", "aten.repeat.default", "aten.cat.default", "aten.slice_copy.Tensor",
    "aten.select_copy.int", "aten.split_with_sizes_copy.default", "aten.flip.default", "aten.constant_pad_nd.default",
    "aten.pixel_shuffle.default", "aten.pixel_unshuffle.default", "dim_order_ops._clone_dim_order.default",
    "aten.view.default", "aten.reshape.default", "aten._unsafe_view.default", "aten.permute.default",
    "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze_copy.default",
    "aten.squeeze_copy.dim", "aten.unsqueeze.default", "aten.expand.default", "aten.slice.Tensor", "aten.select.int",
    "aten.split_with_sizes.default", "aten.clone.default", "aten.alias.default", "aten.alias_copy.default",
    "aten.detach.default", "aten.detach_copy.default",
    "quantized_decomposed.quantize_per_tensor.default",
)  # fmt: skip
_expect(
    ("cpu: needs TOSA INTDIV, which Ethos-U55/U65 do not run", NPU),
    "aten.div.Tensor",
)
_expect((GATHER_U55, NPU), "aten.div.Tensor_mode", "aten.remainder.Tensor", "aten.fmod.Tensor", "aten.pow.Tensor_Tensor")
_expect((NOT_QUANTIZED, NOT_QUANTIZED), "aten.div.Scalar_mode", "aten.slice_scatter.default")
_expect(("cpu: min must be a number", "cpu: min must be a number"), "aten.clamp.Tensor")
# U55: glu is decomposed after its check and the pieces have no quantization parameters.
_expect((NOT_QUANTIZED, NPU), "aten.glu.default")
_expect(
    (BOOL_U55, NPU),
    "aten.eq.Tensor", "aten.ne.Tensor", "aten.lt.Tensor", "aten.le.Tensor", "aten.gt.Tensor", "aten.ge.Tensor",
    "aten.eq.Scalar", "aten.ne.Scalar", "aten.lt.Scalar", "aten.le.Scalar", "aten.gt.Scalar", "aten.ge.Scalar",
    "aten.where.self", "aten.logical_and.default", "aten.logical_or.default", "aten.logical_xor.default",
    "aten.logical_not.default", "aten.any.default", "aten.any.dim", "aten.any.dims", "aten.isnan.default",
    "aten.isinf.default",
)  # fmt: skip
_expect(
    ("cpu: needs TOSA BITWISE_", NPU),
    "aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor", "aten.bitwise_and.Scalar",
    "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar", "aten.bitwise_not.default",
)  # fmt: skip
_expect(("cpu: do not narrow int32 by casting", NPU), "dim_order_ops._to_dim_order_copy.default", "aten._to_copy.default")
_expect((INT64, INT64), "aten.argmax.default", "aten.argmin.default")
_expect(("cpu: Vela 5.2.0 compiles no TOSA RESIZE BILINEAR for Ethos-U55/U65", NPU), "aten.upsample_bilinear2d.vec")
_expect(
    (INT64, INT64),
    "aten.embedding.default", "aten.gather.default", "aten.index.Tensor",
)  # fmt: skip
_expect((GATHER_U55, NPU), "aten.index_select.default")
# U55: tril/triu (SELECT) are decomposed after their check; the boolean mask pieces stay on CPU.
_expect((BOOL_U55, NPU), "aten.tril.default", "aten.triu.default")
_expect(
    (NPU, NPU),
    "aten.arange.start_step", "aten.arange.start", "aten.arange.default", "aten.full.default", "aten.full_like.default",
    "aten.eye.default", "aten.eye.m", "aten.linspace.default", "aten.scalar_tensor.default",
)  # fmt: skip


def int_ops() -> set[str]:
    return {name for name, visitor in registered_targets().items() if "INT" in visitor.profiles}


@functools.lru_cache(maxsize=None)
def compiled(sample_name: str, target: str) -> dict:
    """The report of one sample compiled for one NPU (shared by the sample's operators)."""
    sample = next(s for s in SAMPLES.values() if s.name == sample_name)
    quantizer = EthosUQuantizer(target, exact_composites=True).set_global(get_symmetric_quantization_config())
    return compile_model(sample.module(), sample.inputs(), target, quantize=True, quantizer=quantizer).report


def npu_ops(report: dict) -> set[str]:
    return {op for p in report["partitions"] if p["backend"] == "EthosUBackend" for op in p["aten_ops"]}


def cpu_entries(report: dict) -> list[dict]:
    return [entry for entry in report["cpu_ops"] if entry["op"] not in QDQ]


def observed(report: dict, sample: OpSample, op: str) -> str:
    """What happened to ``op``: "npu", "cpu: <its nodes' reasons>", or a description."""
    edge = sample.edge_ops(op)
    on_cpu = [e["reason"] for e in cpu_entries(report) if e["op"] in edge]
    if on_cpu:
        return "cpu: " + " | ".join(sorted(set(on_cpu)))
    if edge and not set(edge) <= npu_ops(report):
        others = sorted({e["reason"] for e in cpu_entries(report)})
        return "not in the edge graph; " + ("cpu: " + " | ".join(others) if others else "all else on the NPU")
    return NPU


def check(report: dict, sample: OpSample, op: str, target: str, expected: str) -> None:
    edge = sample.edge_ops(op)
    what = observed(report, sample, op)
    vela_cpu = [p["vela"].get("cpu_operators", 0) for p in report["partitions"] if p.get("vela")]
    assert not any(vela_cpu), f"{op} on {target}: Vela left operators on CPU ({vela_cpu})"
    if expected == NPU:
        assert what == NPU, f"{op} on {target}: expected on the NPU, got {what}"
        if all(EXPECTED[other][TARGETS.index(target)] == NPU for other in sample.ops):
            assert cpu_entries(report) == [], f"{op} on {target}: {sample.name} left {cpu_entries(report)} on CPU"
            boundary = len(report["inputs"]) + len(report["outputs_from"])
            qdq = len(report["cpu_ops"])
            assert qdq <= boundary, f"{op} on {target}: {qdq} Q/DQ nodes on CPU, more than the {boundary} at the boundary"
        return
    reason = expected.removeprefix("cpu: ")
    reasons = [e["reason"] for e in cpu_entries(report) if e["op"] in edge]
    if not reasons:  # the op was decomposed (its check failed before): some piece says why
        assert not set(edge) & npu_ops(report), f"{op} on {target}: expected on CPU ({reason}), but it is on the NPU"
        reasons = [e["reason"] for e in cpu_entries(report)]
    assert any(reason in r for r in reasons), f"{op} on {target}: expected on CPU with '{reason}', got {what}"


def test_every_int_operator_is_classified():
    ops = int_ops()
    assert sorted(ops - set(EXPECTED)) == [], "registered INT operators without an expected Ethos-U outcome"
    assert sorted(set(EXPECTED) - ops) == [], "expected outcomes for operators that are no longer registered"


def test_every_int_operator_has_a_sample():
    assert sorted(int_ops() - set(SAMPLES)) == [], "registered INT operators without a sample in op_samples.py"


# Grouped by sample, so each sample compiles once per NPU.
CASES = sorted(((SAMPLES[op].name, op, target) for op in SAMPLES for target in TARGETS), key=lambda c: (c[0], c[2], c[1]))


@pytest.mark.parametrize("sample_name, op, target", CASES, ids=[f"{op}-{target}" for _s, op, target in CASES])
def test_outcome(sample_name, op, target):
    expected = EXPECTED.get(op)
    assert expected is not None, f"{op} has no expected outcome"
    check(compiled(sample_name, target), SAMPLES[op], op, target, expected[TARGETS.index(target)])
