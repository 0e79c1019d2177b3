"""A small representative module for every registered operator (python/etarm/operators).

``SAMPLES`` maps an edge operator name (a registry target) to the ``OpSample`` that
exercises it: a module factory and its example inputs. One sample often covers several
operators (the overloads of an op, or a family of unary functions on one input), each
with an output of its own (output ``i`` is ``ops[i]``'s), so a whole coverage matrix
(python/etarm/testing/op_coverage.py) compiles in a few dozen compiles. ``edge_ops(op)`` names the operators that stand for ``op`` in the edge graph:
itself, or what export turns it into (``aten.view.default`` -> ``aten.view_copy.default``,
``aten.add.Scalar`` -> ``aten.add.Tensor``), or nothing when export removes it
(``aten.alias.default``).

    from etarm.testing.op_samples import SAMPLES
    sample = SAMPLES["aten.convolution.default"]
    compile_model(sample.module(), sample.inputs(), "ethos-u55-128", quantize=True)

Float inputs are quantized by the flow (PT2E); integer and boolean inputs reach the
partition as integer data. Inputs are deterministic (seeded by the sample's name).
``FLOAT_SAMPLES`` holds, for operators that only quantized graphs contain, the float
module that states them outright (what an FP target meets).
"""

from __future__ import annotations

import dataclasses
import zlib
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

aten = torch.ops.aten


@dataclasses.dataclass(frozen=True)
class Input:
    """An example input: floats in [low, high), integers in [low, high), or booleans."""

    shape: tuple[int, ...]
    dtype: torch.dtype = torch.float32
    low: float = -2.0
    high: float = 2.0

    def make(self, generator: torch.Generator) -> torch.Tensor:
        if self.dtype == torch.bool:
            return torch.rand(self.shape, generator=generator) > 0.5
        if self.dtype.is_floating_point:
            return torch.rand(self.shape, generator=generator) * (self.high - self.low) + self.low
        return torch.randint(int(self.low), int(self.high), self.shape, generator=generator, dtype=self.dtype)


class Outputs(nn.Module):
    """Several functions of the same inputs, one output each."""

    def __init__(self, fns: list[Callable]):
        super().__init__()
        self.fns = fns

    def forward(self, *inputs):
        results = tuple(fn(*inputs) for fn in self.fns)
        return results[0] if len(results) == 1 else results


@dataclasses.dataclass(frozen=True)
class OpSample:
    name: str
    ops: tuple[str, ...]  # the registry operators the sample stands for
    factory: Callable[[], nn.Module]
    input_specs: tuple[Input, ...]
    renamed: tuple[tuple[str, tuple[str, ...]], ...] = ()  # op -> its edge operators, where they differ
    fns: tuple[Callable, ...] = ()  # a ``functions`` sample's function of each op

    def module(self) -> nn.Module:
        torch.manual_seed(zlib.crc32(self.name.encode()))
        return self.factory().eval()

    def module_of(self, ops) -> nn.Module:
        """A module with only ``ops``' outputs (a ``functions`` sample), in ``ops``' order."""
        if not self.fns:
            raise ValueError(f"sample {self.name} has no separate function per op")
        return Outputs([self.fns[self.ops.index(op)] for op in ops]).eval()

    def inputs(self) -> tuple[torch.Tensor, ...]:
        generator = torch.Generator().manual_seed(zlib.crc32(self.name.encode()))
        return tuple(spec.make(generator) for spec in self.input_specs)

    def edge_ops(self, op: str) -> tuple[str, ...]:
        """The edge-graph operators ``op`` becomes in this sample (empty: export removes it)."""
        return dict(self.renamed).get(op, (op,))


def _f(*shape, low=-2.0, high=2.0) -> Input:
    return Input(tuple(shape), torch.float32, low, high)


def _i(*shape, low=-100, high=100, dtype=torch.int32) -> Input:
    return Input(tuple(shape), dtype, low, high)


def _b(*shape) -> Input:
    return Input(tuple(shape), torch.bool)


_SAMPLES: list[OpSample] = []


def _make_sample(name: str, factory: Callable[[], nn.Module], inputs: tuple[Input, ...], ops, renamed=None, fns=()) -> OpSample:
    ops = (ops,) if isinstance(ops, str) else tuple(ops)
    renamed = tuple((op, tuple(edge)) for op, edge in (renamed or {}).items())
    return OpSample(name, ops, factory, tuple(inputs), renamed, tuple(fns))


def sample(name: str, factory: Callable[[], nn.Module], inputs: tuple[Input, ...], ops, renamed=None) -> None:
    """A sample for ``ops`` (one name or several); ``renamed`` maps an op to its edge operators."""
    _SAMPLES.append(_make_sample(name, factory, inputs, ops, renamed))


def _functions(name: str, inputs: tuple[Input, ...], fns: dict[str, Callable], renamed=None) -> OpSample:
    functions_of_ops = list(fns.values())
    return _make_sample(name, lambda: Outputs(functions_of_ops), inputs, list(fns), renamed, functions_of_ops)


def functions(name: str, inputs: tuple[Input, ...], fns: dict[str, Callable], renamed=None) -> None:
    """One sample computing ``fns[op](*inputs)`` for each op, each as an output of its own."""
    _SAMPLES.append(_functions(name, inputs, fns, renamed))


X = _f(1, 4, 8, 8)
Y = _f(1, 4, 8, 8)
POSITIVE = _f(1, 4, 8, 8, low=0.1, high=3.0)
DIVISOR = _f(1, 4, 8, 8, low=0.5, high=2.0)
INTS = _i(2, 8)
SHIFTS = _i(2, 8, low=0, high=8)

# --- arithmetic ---------------------------------------------------------------------------------
functions(
    "add_sub_mul", (X, _f(1, 4, 1, 8)),
    {
        "aten.add.Tensor": lambda x, y: x + y,
        "aten.add.Scalar": lambda x, y: aten.add.Scalar(x, 0.75),
        "aten.sub.Tensor": lambda x, y: x - y,
        "aten.sub.Scalar": lambda x, y: aten.sub.Scalar(x, 0.5),
        "aten.mul.Tensor": lambda x, y: x * y,
        "aten.mul.Scalar": lambda x, y: aten.mul.Scalar(x, 1.5),
        "aten.maximum.default": torch.maximum,
        "aten.minimum.default": torch.minimum,
    },
    renamed={"aten.add.Scalar": ["aten.add.Tensor"], "aten.sub.Scalar": ["aten.sub.Tensor"], "aten.mul.Scalar": ["aten.mul.Tensor"]},
)  # fmt: skip
functions(
    "divide_by_constant", (X,),
    {
        "aten.div.Scalar": lambda x: aten.div.Scalar(x, 3.0),
        "aten.remainder.Scalar": lambda x: torch.remainder(x, 1.5),
        "aten.fmod.Scalar": lambda x: torch.fmod(x, -1.25),
        "aten.pow.Tensor_Scalar": lambda x: x**2,
        "aten.pow.Scalar": lambda x: 2.0**x,
    },
    renamed={"aten.div.Scalar": ["aten.div.Tensor"]},
)  # fmt: skip
functions(
    "divide_tensors", (X, DIVISOR),
    {
        "aten.div.Tensor_mode": lambda x, y: torch.div(x, y, rounding_mode="floor"),
        "aten.remainder.Tensor": torch.remainder,
        "aten.fmod.Tensor": torch.fmod,
        "aten.pow.Tensor_Tensor": lambda x, y: torch.pow(torch.abs(x) + 0.1, y),
    },
)  # fmt: skip
# Alone: on Ethos-U55 a pass rewrites it (x * reciprocal(y)), so its outcome is the whole sample's.
functions("divide_by_tensor", (X, DIVISOR), {"aten.div.Tensor": lambda x, y: x / y})
functions("div_scalar_mode", (X,), {"aten.div.Scalar_mode": lambda x: aten.div.Scalar_mode(x, 0.5, rounding_mode="trunc")})
functions("clamp_tensor", (X, Y), {"aten.clamp.Tensor": lambda x, low: torch.clamp(x, min=low)})

# --- unary functions (int8 TABLE look-ups and integer ops) ---------------------------------------
functions(
    "unary_everywhere", (X,),
    {
        "aten.exp.default": torch.exp,
        "aten.expm1.default": torch.expm1,
        "aten.tanh.default": torch.tanh,
        "aten.sigmoid.default": torch.sigmoid,
        "aten.gelu.default": F.gelu,
        "aten.hardswish.default": F.hardswish,
        "aten.hardsigmoid.default": F.hardsigmoid,
        "aten.elu.default": lambda x: F.elu(x, alpha=0.5),
        "aten.celu.default": lambda x: F.celu(x, alpha=0.7),
        "aten.leaky_relu.default": lambda x: F.leaky_relu(x, 0.2),
        "aten.softplus.default": lambda x: F.softplus(x, beta=2.0, threshold=3.0),
        "aten.silu.default": F.silu,
        "aten.mish.default": F.mish,
        "aten.erf.default": torch.erf,
        "aten.sin.default": torch.sin,
        "aten.cos.default": torch.cos,
        "aten.tan.default": lambda x: torch.tan(x * 0.5),
        "aten.atan.default": torch.atan,
        "aten.sinh.default": torch.sinh,
        "aten.cosh.default": torch.cosh,
        "aten.asinh.default": torch.asinh,
        "aten.sign.default": torch.sign,
        "aten.floor.default": torch.floor,
        "aten.ceil.default": torch.ceil,
        "aten.round.default": torch.round,
        "aten.round.decimals": lambda x: torch.round(x, decimals=1),
        "aten.trunc.default": torch.trunc,
        "aten.abs.default": torch.abs,
        "aten.neg.default": torch.neg,
        "aten.relu.default": torch.relu,
        "aten.hardtanh.default": lambda x: F.hardtanh(x, -0.5, 1.0),
        "aten.clamp.default": lambda x: torch.clamp(x, -1.0, 0.5),
    },
)  # fmt: skip
functions(
    "unary_positive", (POSITIVE,),
    {
        "aten.log.default": torch.log,
        "aten.log1p.default": torch.log1p,
        "aten.log2.default": torch.log2,
        "aten.log10.default": torch.log10,
        "aten.sqrt.default": torch.sqrt,
        "aten.rsqrt.default": torch.rsqrt,
        "aten.reciprocal.default": torch.reciprocal,
        "aten.acosh.default": lambda x: torch.acosh(x + 1.0),
    },
)  # fmt: skip
functions(
    "unary_unit_interval", (_f(1, 4, 8, 8, low=-0.9, high=0.9),),
    {
        "aten.asin.default": torch.asin,
        "aten.acos.default": torch.acos,
        "aten.atanh.default": torch.atanh,
        "aten.erfinv.default": torch.erfinv,
        "aten.logit.default": lambda x: torch.logit(x * 0.5 + 0.5),
    },
)  # fmt: skip
functions("glu", (X,), {"aten.glu.default": lambda x: F.glu(x, dim=1)})

# --- comparisons, logic and selection (integer data) ---------------------------------------------
functions(
    "compare", (INTS, _i(2, 8)),
    {
        **{f"aten.{c}.Tensor": (lambda c: lambda x, y: getattr(torch, c)(x, y))(c) for c in ("eq", "ne", "lt", "le", "gt", "ge")},
        **{f"aten.{c}.Scalar": (lambda c: lambda x, y: getattr(torch, c)(x, 7))(c) for c in ("eq", "ne", "lt", "le", "gt", "ge")},
        "aten.where.self": lambda x, y: torch.where(x > y, x, y),
    },
)  # fmt: skip
functions(
    "finite_tests", (X,),
    {"aten.isnan.default": torch.isnan, "aten.isinf.default": lambda x: torch.isinf(x * 2)},
)  # fmt: skip
functions(
    "logic", (_b(2, 3, 8), _b(2, 3, 8)),
    {
        "aten.logical_and.default": torch.logical_and,
        "aten.logical_or.default": torch.logical_or,
        "aten.logical_xor.default": torch.logical_xor,
        "aten.logical_not.default": lambda a, b: torch.logical_not(a),
        "aten.any.default": lambda a, b: torch.any(a),
        "aten.any.dim": lambda a, b: torch.any(a, dim=1),
        "aten.any.dims": lambda a, b: torch.any(a, dim=(0, 2)),
    },
)  # fmt: skip
functions(
    "bitwise", (INTS, _i(2, 8)),
    {
        **{f"aten.bitwise_{b}.Tensor": (lambda b: lambda x, y: getattr(torch, f"bitwise_{b}")(x, y))(b) for b in ("and", "or", "xor")},
        **{f"aten.bitwise_{b}.Scalar": (lambda b: lambda x, y: getattr(aten, f"bitwise_{b}").Scalar(x, 12))(b) for b in ("and", "or", "xor")},
        "aten.bitwise_not.default": lambda x, y: torch.bitwise_not(x),
    },
)  # fmt: skip
functions(
    "shifts", (INTS, SHIFTS),
    {
        "aten.__lshift__.Tensor": aten.__lshift__.Tensor,
        "aten.__lshift__.Scalar": lambda x, s: aten.__lshift__.Scalar(x, 3),
        "aten.__rshift__.Tensor": aten.__rshift__.Tensor,
        "aten.__rshift__.Scalar": lambda x, s: aten.__rshift__.Scalar(x, 3),
        "aten.bitwise_left_shift.Tensor": aten.bitwise_left_shift.Tensor,
        "aten.bitwise_left_shift.Tensor_Scalar": lambda x, s: aten.bitwise_left_shift.Tensor_Scalar(x, 2),
        "aten.bitwise_left_shift.Scalar_Tensor": lambda x, s: aten.bitwise_left_shift.Scalar_Tensor(5, s),
        "aten.bitwise_right_shift.Tensor": aten.bitwise_right_shift.Tensor,
        "aten.bitwise_right_shift.Tensor_Scalar": lambda x, s: aten.bitwise_right_shift.Tensor_Scalar(x, 2),
        "aten.bitwise_right_shift.Scalar_Tensor": lambda x, s: aten.bitwise_right_shift.Scalar_Tensor(1000, s),
    },
)  # fmt: skip
functions(
    "integer_casts", (INTS,),
    {
        "dim_order_ops._to_dim_order_copy.default": lambda x: (x + 3).to(torch.int8),  # no int32 product: on CPU
        "aten._to_copy.default": lambda x: aten._to_copy.default(x + 1, dtype=torch.int16),
    },
    renamed={"aten._to_copy.default": ["dim_order_ops._to_dim_order_copy.default"]},
)  # fmt: skip

# --- reductions -----------------------------------------------------------------------------------
functions(
    "sums", (X,),
    {
        "aten.sum.dim_IntList": lambda x: torch.sum(x, dim=(2, 3), keepdim=True),
        "aten.sum.default": lambda x: aten.sum.default(x),
        "aten.mean.dim": lambda x: x.mean(dim=-1, keepdim=True),
        "aten.mean.default": lambda x: aten.mean.default(x),
        "aten.var.correction": lambda x: torch.var(x, dim=-1, keepdim=True),
        "aten.std.correction": lambda x: torch.std(x, dim=-1, keepdim=True),
        "aten.cumsum.default": lambda x: torch.cumsum(x, dim=-1),
    },
    renamed={"aten.sum.default": ["aten.sum.dim_IntList"]},
)  # fmt: skip
functions(
    "extremes", (X,),
    {
        "aten.amax.default": lambda x: torch.amax(x, dim=1, keepdim=True),
        "aten.amin.default": lambda x: torch.amin(x, dim=-1),
        "aten.max.dim": lambda x: torch.max(x, dim=-1).values,
        "aten.min.dim": lambda x: torch.min(x, dim=2).values,
        "aten.max.default": torch.max,
        "aten.min.default": torch.min,
    },
)  # fmt: skip
functions(
    "product", (_f(2, 5, low=0.5, high=1.5),),
    {"aten.prod.dim_int": lambda x: torch.prod(x, dim=-1), "aten.prod.default": torch.prod},
)  # fmt: skip
functions("argmax", (X,), {"aten.argmax.default": lambda x: torch.argmax(x, dim=-1), "aten.argmin.default": lambda x: torch.argmin(x, dim=-1)})


# --- normalization and softmax --------------------------------------------------------------------
class _StandaloneBatchNorm(nn.Module):
    """A BatchNorm after an add, so no convolution absorbs it."""

    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm2d(4)
        self.norm.running_mean.uniform_(-0.5, 0.5)
        self.norm.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return self.norm(x + 1.0)


class _Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_norm, self.group_norm, self.rms_norm = nn.LayerNorm(8), nn.GroupNorm(2, 4), nn.RMSNorm(8)

    def forward(self, x):
        return self.layer_norm(x), self.group_norm(x), self.rms_norm(x)


sample("norms", _Norms, (X,), ("aten.native_layer_norm.default", "aten.native_group_norm.default", "aten.rms_norm.default"))
# On its own: with a BatchNorm no convolution absorbs, torchao's convert_pt2e tries its
# conv-bn patterns (~30 s), whatever else the module holds.
sample("batch_norm", _StandaloneBatchNorm, (X,), "aten._native_batch_norm_legit_no_training.default")
functions(
    "attention", (_f(1, 2, 8, 8), _f(1, 2, 8, 8), _f(1, 2, 8, 8)),
    {"aten.scaled_dot_product_attention.default": F.scaled_dot_product_attention},
)  # fmt: skip
functions(
    "softmax", (_f(1, 4, 16),),
    {"aten._softmax.default": lambda x: torch.softmax(x, dim=-1), "aten._log_softmax.default": lambda x: torch.log_softmax(x, dim=-1)},
)  # fmt: skip


# --- weighted layers and matrix products ----------------------------------------------------------
class _Weighted(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.linear = nn.Linear(8, 6)

    def forward(self, x):
        return self.conv(x), self.linear(x)


sample("weighted", _Weighted, (X,), ("aten.convolution.default", "aten.linear.default"))
functions(
    "matrix_products", (_f(4, 8), _f(8, 6), _f(2, 4, 8), _f(2, 8, 6), _f(4, 6)),
    {
        "aten.mm.default": lambda a, b, a3, b3, s: torch.mm(a, b),
        "aten.bmm.default": lambda a, b, a3, b3, s: torch.bmm(a3, b3),
        "aten.matmul.default": lambda a, b, a3, b3, s: torch.matmul(a3, b),
        "aten.addmm.default": lambda a, b, a3, b3, s: torch.addmm(s, a, b, beta=0.5),
    },
)  # fmt: skip

# --- pooling and resizing -------------------------------------------------------------------------
functions(
    "pooling", (X,),
    {
        "aten.avg_pool2d.default": lambda x: F.avg_pool2d(x, 2),
        "aten.max_pool2d_with_indices.default": lambda x: F.max_pool2d(x, 3, 2, 1),
        "aten._adaptive_avg_pool2d.default": lambda x: F.adaptive_avg_pool2d(x, 2),
    },
)  # fmt: skip
functions(
    "pooling_1d", (_f(1, 4, 16),),
    {"aten.avg_pool1d.default": lambda x: F.avg_pool1d(x, 3, 2, 1), "aten.max_pool1d.default": lambda x: F.max_pool1d(x, 2)},
)  # fmt: skip
functions(
    "resize_nearest", (X,),
    {
        "aten.upsample_nearest2d.vec": lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
        "aten._upsample_nearest_exact2d.vec": lambda x: F.interpolate(x, scale_factor=4, mode="nearest-exact"),
    },
)  # fmt: skip
functions("resize_bilinear", (X,), {"aten.upsample_bilinear2d.vec": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear")})

# --- data movement (after a multiplication, so the values are computed in the partition) ----------
functions(
    "data_movement", (X, _f(1, 2, 8, 8)),
    {
        "aten.view_copy.default": lambda x, y: (x * 2).view(4, 64),
        "aten.permute_copy.default": lambda x, y: (x * 2).permute(0, 2, 3, 1),
        "aten.squeeze_copy.dims": lambda x, y: torch.squeeze(x * 2, 0),
        "aten.unsqueeze_copy.default": lambda x, y: torch.unsqueeze(x * 2, 1),
        "aten.expand_copy.default": lambda x, y: (x * 2)[:, :1].expand(1, 4, 8, 8) + y[:, :1],
        "aten.repeat.default": lambda x, y: (x * 2).repeat(1, 2, 1, 3),
        "aten.cat.default": lambda x, y: torch.cat([x * 2, y], dim=1),
        "aten.slice_copy.Tensor": lambda x, y: (x * 2)[:, 1:3, ::2],
        "aten.select_copy.int": lambda x, y: (x * 2)[:, 1],
        "aten.split_with_sizes_copy.default": lambda x, y: torch.split(x * 2, [1, 3], dim=1)[1],
        "aten.flip.default": lambda x, y: torch.flip(x * 2, dims=[2]),
        "aten.constant_pad_nd.default": lambda x, y: F.pad(x * 2, (1, 2, 0, 1)),
        "aten.pixel_shuffle.default": lambda x, y: F.pixel_shuffle(x * 2, 2),
        "aten.pixel_unshuffle.default": lambda x, y: F.pixel_unshuffle(x * 2, 2),
        "dim_order_ops._clone_dim_order.default": lambda x, y: (x * 2).transpose(1, 2).reshape(1, 32, 8),
    },
)  # fmt: skip
# Spellings export turns into the ones above (or removes): each still compiles, to the same edge ops.
functions(
    "data_movement_aliases", (X,),
    {
        "aten.view.default": lambda x: aten.view.default(x * 2, [4, 64]),
        "aten.reshape.default": lambda x: aten.reshape.default(x * 2, [4, 64]),
        "aten._unsafe_view.default": lambda x: aten._unsafe_view.default(x * 2, [64, 4]),
        "aten.permute.default": lambda x: aten.permute.default(x * 2, [0, 3, 1, 2]),
        "aten.squeeze.default": lambda x: aten.squeeze.default(x * 2),
        "aten.squeeze.dim": lambda x: aten.squeeze.dim(x * 2, 0),
        "aten.squeeze.dims": lambda x: aten.squeeze.dims(x * 2, [0]),
        "aten.squeeze_copy.default": lambda x: aten.squeeze_copy.default(x * 2),
        "aten.squeeze_copy.dim": lambda x: aten.squeeze_copy.dim(x * 2, 0),
        "aten.unsqueeze.default": lambda x: aten.unsqueeze.default(x * 2, 0),
        "aten.expand.default": lambda x: aten.expand.default(x * 2, [2, 4, 8, 8]),
        "aten.slice.Tensor": lambda x: aten.slice.Tensor(x * 2, 1, 0, 2),
        "aten.select.int": lambda x: aten.select.int(x * 2, 1, 3),
        "aten.split_with_sizes.default": lambda x: aten.split_with_sizes.default(x * 2, [2, 2], 1)[0],
        "aten.clone.default": lambda x: aten.clone.default(x * 2) + 1,
        "aten.alias.default": lambda x: aten.alias.default(x * 2) + 1,
        "aten.alias_copy.default": lambda x: aten.alias_copy.default(x * 2) + 1,
        "aten.detach.default": lambda x: aten.detach.default(x * 2) + 1,
        "aten.detach_copy.default": lambda x: aten.detach_copy.default(x * 2) + 1,
    },
    renamed={
        "aten.view.default": ["aten.view_copy.default"],
        "aten.reshape.default": ["aten.view_copy.default"],
        "aten._unsafe_view.default": ["aten.view_copy.default"],
        "aten.permute.default": ["aten.permute_copy.default"],
        "aten.squeeze.default": ["aten.squeeze_copy.dims"],
        "aten.squeeze.dim": ["aten.squeeze_copy.dims"],
        "aten.squeeze.dims": ["aten.squeeze_copy.dims"],
        "aten.squeeze_copy.default": ["aten.squeeze_copy.dims"],
        "aten.squeeze_copy.dim": ["aten.squeeze_copy.dims"],
        "aten.unsqueeze.default": ["aten.unsqueeze_copy.default"],
        "aten.expand.default": ["aten.expand_copy.default"],
        "aten.slice.Tensor": ["aten.slice_copy.Tensor"],
        "aten.select.int": ["aten.select_copy.int"],
        "aten.split_with_sizes.default": ["aten.split_with_sizes_copy.default"],
        "aten.clone.default": [],
        "aten.alias.default": [],
        "aten.alias_copy.default": [],
        "aten.detach.default": [],
        "aten.detach_copy.default": [],
    },
)  # fmt: skip
# An in-place op on a graph input writes its result back with aten.copy (its own sample: it
# changes the input the other functions of a sample would read).
functions("copy", (X,), {"aten.copy.default": lambda x: x.mul_(torch.sigmoid(x))})
functions("slice_scatter", (_f(1, 8, 8), _f(1, 4, 8)), {"aten.slice_scatter.default": lambda x, y: torch.slice_scatter(x * 2, y, dim=1, start=2, end=6)})
# Quantized tril/triu decompose before partitioning; on integer data they are lowered whole.
functions("triangles", (_i(1, 8, 8),), {"aten.tril.default": torch.tril, "aten.triu.default": lambda x: torch.triu(x, 1)})


# --- gathers and indexing -------------------------------------------------------------------------
class _Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(10, 8)

    def forward(self, x, ids, picks, rows, indices):
        return self.table(ids), torch.gather(x, 1, picks), x[rows], torch.index_select(x, 1, indices)


# Each index tensor is an input of its own (an int64 slice of one stays on CPU on FP), after
# the values: partitions take the quantized input first.
_IDS = _i(2, 6, low=0, high=10, dtype=torch.int64)
sample(
    "indexing", _Embedding,
    (_f(10, 10), _IDS, _i(2, 4, low=0, high=10, dtype=torch.int64), _i(6, low=0, high=10, dtype=torch.int64), _i(3, low=0, high=10)),
    ("aten.embedding.default", "aten.gather.default", "aten.index.Tensor", "aten.index_select.default"),
)  # fmt: skip

class _IndexPut(nn.Module):
    """Distinct rows: TOSA SCATTER leaves repeated writes undefined (as torch does)."""

    def forward(self, x, values):
        return aten.index_put.default(x, [torch.tensor([4, 0, 2])], values, False)


sample("index_put", _IndexPut, (_f(6, 8), _f(3, 8)), ("aten.index_put.default",))

# --- creation (integer data) ----------------------------------------------------------------------
# Combined with x by additions: an int32 product of unbounded values stays off the NPU
# (npu_rules.integer_product_reason), and these samples test the creation ops.
functions(
    "creation", (_i(8, 8),),
    {
        "aten.arange.start_step": lambda x: x + torch.arange(2, 18, 2, dtype=torch.int32),
        "aten.arange.start": lambda x: x + torch.arange(3, 11, dtype=torch.int32),
        "aten.arange.default": lambda x: x - torch.arange(8, dtype=torch.int32),
        "aten.full.default": lambda x: x + torch.full((8, 8), 3, dtype=torch.int32),
        "aten.full_like.default": lambda x: x - torch.full_like(x, 2),
        "aten.eye.default": lambda x: x + torch.eye(8, dtype=torch.int32),
        "aten.eye.m": lambda x: x + torch.eye(8, 8, dtype=torch.int32),
        "aten.linspace.default": lambda x: x + torch.linspace(0, 14, 8, dtype=torch.int32),
        "aten.scalar_tensor.default": lambda x: x + aten.scalar_tensor.default(5, dtype=torch.int32),
    },
    renamed={"aten.arange.start": ["aten.arange.start_step"], "aten.arange.default": ["aten.arange.start_step"]},
)  # fmt: skip

# --- requantize: cat of inputs with different ranges (PT2E requantizes one of them) -------------------
functions("requantize", (X, Y), {"quantized_decomposed.quantize_per_tensor.default": lambda x, y: torch.cat([x, y * 4], dim=1)})


# A float model stating the quantize that PT2E inserts (an FP target never quantizes).
FLOAT_SAMPLES: dict[str, OpSample] = {
    "quantized_decomposed.quantize_per_tensor.default": _functions(
        "explicit_quantize", (X,),
        {"quantized_decomposed.quantize_per_tensor.default": lambda x: torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.05, 3, -128, 127, torch.int8)},
    ),
}  # fmt: skip

SAMPLES: dict[str, OpSample] = {}
for _sample in _SAMPLES:
    for _name in _sample.ops:
        if _name in SAMPLES:
            raise ValueError(f"{_name} has two samples: {SAMPLES[_name].name} and {_sample.name}")
        SAMPLES[_name] = _sample
