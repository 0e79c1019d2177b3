"""The op-coverage matrix: what every registered operator's sample does on every target.

One row per registry target (python/etarm/lowering/registry.py), keyed by the operator's
name: the ``<op>`` of its visitor python/etarm/operators/op_<op>.py and of its tests
tests/operators/test_<op>.py (e.g. every row of ``softmax`` is ``row("softmax", ...)``).
Each row states the outcome of the operator's sample (python/etarm/testing/op_samples.py)
compiled for each of ``TARGETS``:

- ``RUNS``: delegated. TOSA-1.0+FP: nothing of the operator stays on CPU and its output,
  run on the TOSA reference model, matches torch (1e-5); TOSA-1.0+INT: quantized by PT2E
  (TOSAQuantizer), its output is within 1 output step (LSB) of the convert_pt2e'd model
  in eager; Ethos-U: compiled through Vela with every compute op on the NPU (int8,
  EthosUQuantizer keeping composites whole) and no CPU operator in Vela's output.
- ``vgf`` and ``vgf -q`` (``-t vgf``, float and quantized): every partition converted by
  model-converter into a .vgf payload whose inputs and outputs match the partition. The
  converter takes every TOSA graph etarm emits, so these outcomes are the TOSA FP and INT
  ones (``VGF_PROFILES``); the .vgf itself runs in runtime/vgf's tests.
- ``"cpu: <reason>"``: the partitioner keeps the operator on CPU with a reason
  containing ``<reason>``; the compile still succeeds.

tests/operators/test_op_coverage.py checks every (row, target), so a change in either
direction fails, as does a registered operator without a row (a new operator must be
classified for every target) or a row of an operator no longer registered.
"""

from __future__ import annotations

import dataclasses

TARGETS = ("TOSA-1.0+FP", "TOSA-1.0+INT", "ethos-u55-128", "ethos-u85-256", "vgf", "vgf -q")
FP, INT, U55, U85, VGF_FP, VGF_INT = TARGETS
# The VGF columns: the outcome of the TOSA profile -t vgf lowers with (no VGF rule of its own).
VGF_PROFILES = {VGF_FP: FP, VGF_INT: INT}

RUNS = "runs"


@dataclasses.dataclass(frozen=True)
class Row:
    op: str  # the operator's name: python/etarm/operators/op_<op>.py
    target: str  # the registry target (an edge operator) the row is for
    outcomes: dict[str, str]  # TARGETS -> RUNS or "cpu: <reason>"


MATRIX: dict[str, Row] = {}  # registry target -> its row


def row(op: str, target: str, *outcomes: str) -> None:
    assert target not in MATRIX, f"two rows for {target}"
    assert len(outcomes) == len(TARGETS) - len(VGF_PROFILES), f"{target}: one outcome per target but VGF"
    assert all(o == RUNS or o.startswith("cpu: ") for o in outcomes), f"{target}: {outcomes}"
    stated = dict(zip(TARGETS, outcomes))
    MATRIX[target] = Row(op, target, {**stated, **{vgf: stated[tosa] for vgf, tosa in VGF_PROFILES.items()}})


def rows_of(op: str) -> list[Row]:
    """The rows of operator ``op`` (e.g. "softmax", "div")."""
    return [r for r in MATRIX.values() if r.op == op]


# Reasons (substrings of the report's) shared by several operators.
# TOSA-1.0+FP: the sample's integer data needs the INT profile.
INT32_NEEDS_INT = "cpu: on torch.int32 needs the TOSA INT profile"
INT_CAST = "cpu: needs the TOSA INT profile (int->int CAST)"
SHIFT_BY_TENSOR = "cpu: only int32 shifted by a constant is supported"
QUANTIZE_ON_FP = "cpu: is not lowered for TOSA-1.0+FP"
# Quantized targets.
NOT_QUANTIZED = "cpu: is not quantized"
PROD_ON_INT = "cpu: is not lowered for TOSA-1.0+INT"
# Ethos-U.
BOOL_U55 = "cpu: Ethos-U55/U65 have no boolean tensors"
INT64 = "cpu: is int64: Ethos-U partitions read and write"
GATHER_U55 = "cpu: needs TOSA GATHER"
BITWISE_U55 = "cpu: needs TOSA BITWISE_"
NARROWING_CAST = "cpu: do not narrow int32 by casting"
BILINEAR_U55 = "cpu: Vela 5.2.0 compiles no TOSA RESIZE BILINEAR for Ethos-U55/U65"

# fmt: off
# op, registry target                                                   TOSA-1.0+FP      TOSA-1.0+INT     ethos-u55-128    ethos-u85-256
row("abs", "aten.abs.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("acos", "aten.acos.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("acosh", "aten.acosh.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("adaptive_avg_pool2d", "aten._adaptive_avg_pool2d.default",          RUNS,            RUNS,            RUNS,            RUNS)
row("add", "aten.add.Scalar",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("add", "aten.add.Tensor",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("addmm", "aten.addmm.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("alias", "aten.alias.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("alias", "aten.alias_copy.default",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("amax", "aten.amax.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("amin", "aten.amin.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("any", "aten.any.default",                                           RUNS,            RUNS,            BOOL_U55,        RUNS)
row("any", "aten.any.dim",                                               RUNS,            RUNS,            BOOL_U55,        RUNS)
row("any", "aten.any.dims",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("arange", "aten.arange.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("arange", "aten.arange.start",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("arange", "aten.arange.start_step",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("argmax", "aten.argmax.default",                                     RUNS,            RUNS,            INT64,           INT64)
row("argmin", "aten.argmin.default",                                     RUNS,            RUNS,            INT64,           INT64)
row("asin", "aten.asin.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("asinh", "aten.asinh.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("atan", "aten.atan.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("atanh", "aten.atanh.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("avg_pool1d", "aten.avg_pool1d.default",                             RUNS,            RUNS,            RUNS,            RUNS)
row("avg_pool2d", "aten.avg_pool2d.default",                             RUNS,            RUNS,            RUNS,            RUNS)
row("bitwise_and", "aten.bitwise_and.Scalar",                            INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bitwise_and", "aten.bitwise_and.Tensor",                            INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bitwise_left_shift", "aten.bitwise_left_shift.Scalar_Tensor",       RUNS,            RUNS,            RUNS,            RUNS)
row("bitwise_left_shift", "aten.bitwise_left_shift.Tensor",              RUNS,            RUNS,            RUNS,            RUNS)
row("bitwise_left_shift", "aten.bitwise_left_shift.Tensor_Scalar",       RUNS,            RUNS,            RUNS,            RUNS)
row("bitwise_not", "aten.bitwise_not.default",                           INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bitwise_or", "aten.bitwise_or.Scalar",                              INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bitwise_or", "aten.bitwise_or.Tensor",                              INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bitwise_right_shift", "aten.bitwise_right_shift.Scalar_Tensor",     SHIFT_BY_TENSOR, RUNS,            RUNS,            RUNS)
row("bitwise_right_shift", "aten.bitwise_right_shift.Tensor",            SHIFT_BY_TENSOR, RUNS,            RUNS,            RUNS)
row("bitwise_right_shift", "aten.bitwise_right_shift.Tensor_Scalar",     RUNS,            RUNS,            RUNS,            RUNS)
row("bitwise_xor", "aten.bitwise_xor.Scalar",                            INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bitwise_xor", "aten.bitwise_xor.Tensor",                            INT32_NEEDS_INT, RUNS,            BITWISE_U55,     RUNS)
row("bmm", "aten.bmm.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("cat", "aten.cat.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("ceil", "aten.ceil.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("celu", "aten.celu.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("clamp", "aten.clamp.Tensor",                                        RUNS,            RUNS,            RUNS,            RUNS)
row("clamp", "aten.clamp.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("copy", "aten.copy.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("clone", "aten.clone.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("clone", "dim_order_ops._clone_dim_order.default",                   RUNS,            RUNS,            RUNS,            RUNS)
row("constant_pad_nd", "aten.constant_pad_nd.default",                   RUNS,            RUNS,            RUNS,            RUNS)
row("convolution", "aten.convolution.default",                           RUNS,            RUNS,            RUNS,            RUNS)
row("cos", "aten.cos.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("cosh", "aten.cosh.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("cumsum", "aten.cumsum.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("detach", "aten.detach.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("detach", "aten.detach_copy.default",                                RUNS,            RUNS,            RUNS,            RUNS)
row("div", "aten.div.Scalar",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("div", "aten.div.Scalar_mode",                                       RUNS,            NOT_QUANTIZED,   NOT_QUANTIZED,   NOT_QUANTIZED)
row("div", "aten.div.Tensor",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("div", "aten.div.Tensor_mode",                                       RUNS,            RUNS,            GATHER_U55,      RUNS)
row("elu", "aten.elu.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("embedding", "aten.embedding.default",                               RUNS,            RUNS,            GATHER_U55,      RUNS)
row("eq", "aten.eq.Scalar",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("eq", "aten.eq.Tensor",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("erf", "aten.erf.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("erfinv", "aten.erfinv.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("exp", "aten.exp.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("expand", "aten.expand.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("expand", "aten.expand_copy.default",                                RUNS,            RUNS,            RUNS,            RUNS)
row("expm1", "aten.expm1.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("eye", "aten.eye.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("eye", "aten.eye.m",                                                 RUNS,            RUNS,            RUNS,            RUNS)
row("flip", "aten.flip.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("floor", "aten.floor.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("fmod", "aten.fmod.Scalar",                                          RUNS,            RUNS,            RUNS,            RUNS)
row("fmod", "aten.fmod.Tensor",                                          RUNS,            RUNS,            GATHER_U55,      RUNS)
row("full", "aten.full.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("full_like", "aten.full_like.default",                               RUNS,            RUNS,            RUNS,            RUNS)
row("gather", "aten.gather.default",                                     RUNS,            RUNS,            GATHER_U55,      RUNS)
row("ge", "aten.ge.Scalar",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("ge", "aten.ge.Tensor",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("gelu", "aten.gelu.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("glu", "aten.glu.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("gt", "aten.gt.Scalar",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("gt", "aten.gt.Tensor",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("hardsigmoid", "aten.hardsigmoid.default",                           RUNS,            RUNS,            RUNS,            RUNS)
row("hardswish", "aten.hardswish.default",                               RUNS,            RUNS,            RUNS,            RUNS)
row("hardtanh", "aten.hardtanh.default",                                 RUNS,            RUNS,            RUNS,            RUNS)
row("index", "aten.index.Tensor",                                        RUNS,            RUNS,            GATHER_U55,      RUNS)
row("index_put", "aten.index_put.default",                               RUNS,            RUNS,            GATHER_U55,      RUNS)
row("index_select", "aten.index_select.default",                         RUNS,            RUNS,            GATHER_U55,      RUNS)
row("isinf", "aten.isinf.default",                                       RUNS,            RUNS,            BOOL_U55,        RUNS)
row("isnan", "aten.isnan.default",                                       RUNS,            RUNS,            BOOL_U55,        RUNS)
row("le", "aten.le.Scalar",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("le", "aten.le.Tensor",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("leaky_relu", "aten.leaky_relu.default",                             RUNS,            RUNS,            RUNS,            RUNS)
row("linear", "aten.linear.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("linspace", "aten.linspace.default",                                 RUNS,            RUNS,            RUNS,            RUNS)
row("log", "aten.log.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("log10", "aten.log10.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("log1p", "aten.log1p.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("log2", "aten.log2.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("log_softmax", "aten._log_softmax.default",                          RUNS,            RUNS,            RUNS,            RUNS)
row("logical_and", "aten.logical_and.default",                           RUNS,            RUNS,            BOOL_U55,        RUNS)
row("logical_not", "aten.logical_not.default",                           RUNS,            RUNS,            BOOL_U55,        RUNS)
row("logical_or", "aten.logical_or.default",                             RUNS,            RUNS,            BOOL_U55,        RUNS)
row("logical_xor", "aten.logical_xor.default",                           RUNS,            RUNS,            BOOL_U55,        RUNS)
row("logit", "aten.logit.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("lshift", "aten.__lshift__.Scalar",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("lshift", "aten.__lshift__.Tensor",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("lt", "aten.lt.Scalar",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("lt", "aten.lt.Tensor",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("matmul", "aten.matmul.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("max", "aten.max.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("max", "aten.max.dim",                                               RUNS,            RUNS,            RUNS,            RUNS)
row("max_pool1d", "aten.max_pool1d.default",                             RUNS,            RUNS,            RUNS,            RUNS)
row("max_pool2d_with_indices", "aten.max_pool2d_with_indices.default",   RUNS,            RUNS,            RUNS,            RUNS)
row("maximum", "aten.maximum.default",                                   RUNS,            RUNS,            RUNS,            RUNS)
row("mean", "aten.mean.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("mean", "aten.mean.dim",                                             RUNS,            RUNS,            RUNS,            RUNS)
row("min", "aten.min.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("min", "aten.min.dim",                                               RUNS,            RUNS,            RUNS,            RUNS)
row("minimum", "aten.minimum.default",                                   RUNS,            RUNS,            RUNS,            RUNS)
row("mish", "aten.mish.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("mm", "aten.mm.default",                                             RUNS,            RUNS,            RUNS,            RUNS)
row("mul", "aten.mul.Scalar",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("mul", "aten.mul.Tensor",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("native_batch_norm_legit_no_training", "aten._native_batch_norm_legit_no_training.default", RUNS,            RUNS,            RUNS,            RUNS)
row("native_group_norm", "aten.native_group_norm.default",               RUNS,            RUNS,            RUNS,            RUNS)
row("native_layer_norm", "aten.native_layer_norm.default",               RUNS,            RUNS,            RUNS,            RUNS)
row("ne", "aten.ne.Scalar",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("ne", "aten.ne.Tensor",                                              RUNS,            RUNS,            BOOL_U55,        RUNS)
row("neg", "aten.neg.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("permute", "aten.permute.default",                                   RUNS,            RUNS,            RUNS,            RUNS)
row("permute", "aten.permute_copy.default",                              RUNS,            RUNS,            RUNS,            RUNS)
row("pixel_shuffle", "aten.pixel_shuffle.default",                       RUNS,            RUNS,            RUNS,            RUNS)
row("pixel_unshuffle", "aten.pixel_unshuffle.default",                   RUNS,            RUNS,            RUNS,            RUNS)
row("pow", "aten.pow.Scalar",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("pow", "aten.pow.Tensor_Scalar",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("pow", "aten.pow.Tensor_Tensor",                                     RUNS,            RUNS,            GATHER_U55,      RUNS)
row("prod", "aten.prod.default",                                         RUNS,            PROD_ON_INT,     PROD_ON_INT,     PROD_ON_INT)
row("prod", "aten.prod.dim_int",                                         RUNS,            PROD_ON_INT,     PROD_ON_INT,     PROD_ON_INT)
row("quantize_per_tensor", "quantized_decomposed.quantize_per_tensor.default", QUANTIZE_ON_FP,  RUNS,            RUNS,            RUNS)
row("reciprocal", "aten.reciprocal.default",                             RUNS,            RUNS,            RUNS,            RUNS)
row("relu", "aten.relu.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("remainder", "aten.remainder.Scalar",                                RUNS,            RUNS,            RUNS,            RUNS)
row("remainder", "aten.remainder.Tensor",                                RUNS,            RUNS,            GATHER_U55,      RUNS)
row("repeat", "aten.repeat.default",                                     RUNS,            RUNS,            RUNS,            RUNS)
row("rms_norm", "aten.rms_norm.default",                                 RUNS,            RUNS,            RUNS,            RUNS)
row("round", "aten.round.decimals",                                      RUNS,            RUNS,            RUNS,            RUNS)
row("round", "aten.round.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("rshift", "aten.__rshift__.Scalar",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("rshift", "aten.__rshift__.Tensor",                                  SHIFT_BY_TENSOR, RUNS,            RUNS,            RUNS)
row("rsqrt", "aten.rsqrt.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("scalar_tensor", "aten.scalar_tensor.default",                       RUNS,            RUNS,            RUNS,            RUNS)
row("scaled_dot_product_attention", "aten.scaled_dot_product_attention.default", RUNS,            RUNS,            RUNS,            RUNS)
row("select", "aten.select.int",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("select", "aten.select_copy.int",                                    RUNS,            RUNS,            RUNS,            RUNS)
row("sigmoid", "aten.sigmoid.default",                                   RUNS,            RUNS,            RUNS,            RUNS)
row("sign", "aten.sign.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("silu", "aten.silu.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("sin", "aten.sin.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("sinh", "aten.sinh.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("slice", "aten.slice.Tensor",                                        RUNS,            RUNS,            RUNS,            RUNS)
row("slice", "aten.slice_copy.Tensor",                                   RUNS,            RUNS,            RUNS,            RUNS)
row("slice_scatter", "aten.slice_scatter.default",                       RUNS,            RUNS,            RUNS,            RUNS)
row("softmax", "aten._softmax.default",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("softplus", "aten.softplus.default",                                 RUNS,            RUNS,            RUNS,            RUNS)
row("split_with_sizes", "aten.split_with_sizes.default",                 RUNS,            RUNS,            RUNS,            RUNS)
row("split_with_sizes", "aten.split_with_sizes_copy.default",            RUNS,            RUNS,            RUNS,            RUNS)
row("sqrt", "aten.sqrt.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("squeeze", "aten.squeeze.default",                                   RUNS,            RUNS,            RUNS,            RUNS)
row("squeeze", "aten.squeeze.dim",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("squeeze", "aten.squeeze.dims",                                      RUNS,            RUNS,            RUNS,            RUNS)
row("squeeze", "aten.squeeze_copy.default",                              RUNS,            RUNS,            RUNS,            RUNS)
row("squeeze", "aten.squeeze_copy.dim",                                  RUNS,            RUNS,            RUNS,            RUNS)
row("squeeze", "aten.squeeze_copy.dims",                                 RUNS,            RUNS,            RUNS,            RUNS)
row("std", "aten.std.correction",                                        RUNS,            RUNS,            RUNS,            RUNS)
row("sub", "aten.sub.Scalar",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("sub", "aten.sub.Tensor",                                            RUNS,            RUNS,            RUNS,            RUNS)
row("sum", "aten.sum.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("sum", "aten.sum.dim_IntList",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("tan", "aten.tan.default",                                           RUNS,            RUNS,            RUNS,            RUNS)
row("tanh", "aten.tanh.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("to_copy", "aten._to_copy.default",                                  INT_CAST,        RUNS,            NARROWING_CAST,  RUNS)
row("to_copy", "dim_order_ops._to_dim_order_copy.default",               INT_CAST,        RUNS,            NARROWING_CAST,  RUNS)
row("tril", "aten.tril.default",                                         RUNS,            RUNS,            BOOL_U55,        RUNS)
row("triu", "aten.triu.default",                                         RUNS,            RUNS,            BOOL_U55,        RUNS)
row("trunc", "aten.trunc.default",                                       RUNS,            RUNS,            RUNS,            RUNS)
row("unsqueeze", "aten.unsqueeze.default",                               RUNS,            RUNS,            RUNS,            RUNS)
row("unsqueeze", "aten.unsqueeze_copy.default",                          RUNS,            RUNS,            RUNS,            RUNS)
row("upsample_bilinear2d", "aten.upsample_bilinear2d.vec",               RUNS,            RUNS,            BILINEAR_U55,    RUNS)
row("upsample_nearest2d", "aten.upsample_nearest2d.vec",                 RUNS,            RUNS,            RUNS,            RUNS)
row("upsample_nearest_exact2d", "aten._upsample_nearest_exact2d.vec",    RUNS,            RUNS,            RUNS,            RUNS)
row("var", "aten.var.correction",                                        RUNS,            RUNS,            RUNS,            RUNS)
row("view", "aten._unsafe_view.default",                                 RUNS,            RUNS,            RUNS,            RUNS)
row("view", "aten.reshape.default",                                      RUNS,            RUNS,            RUNS,            RUNS)
row("view", "aten.view.default",                                         RUNS,            RUNS,            RUNS,            RUNS)
row("view", "aten.view_copy.default",                                    RUNS,            RUNS,            RUNS,            RUNS)
row("where", "aten.where.self",                                          RUNS,            RUNS,            BOOL_U55,        RUNS)
# fmt: on
