"""Ethos-U support checks on ATen nodes: the partitioner's per-NPU-family additions.

The TOSA partitioner first decides what TOSA INT can express; these checks then keep
on CPU what the chosen NPU family cannot run, using the parameters visible on the
edge node (kernel, stride, padding, shapes, quantized data type). The facts come from
npu_rules.py. Unknown operators pass: the TOSA-level checks in tosa_checks.py run on
the lowered graph before Vela and name anything that slipped through.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from typing import Callable

import torch

from etarm.ethosu import npu_rules
from etarm.lowering.quantized import TableLowering
from etarm.lowering.quantized_lookup import LookupLowering, int16_table_entries
from etarm.lowering.registry import visitor_for
from etarm.op_names import op_name
from etarm.tosa_ir.quant_params import QuantParams, is_dequantize, is_quantize, qdq_dtype, qparams_of

NodeRule = Callable[[torch.fx.Node, "Target"], "str | None"]

# Operators that lower to TOSA GATHER/SCATTER, which Ethos-U55/U65 do not run.
_GATHER_SCATTER_PREFIXES = (
    "aten.embedding.",
    "aten.index_select.",
    "aten.gather.",
    "aten.index.Tensor",
    "aten.scatter",
    "aten.index_put",
)


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _value(node) -> torch.Tensor | None:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return value if isinstance(value, torch.Tensor) else None


def _shape(node) -> tuple[int, ...]:
    value = _value(node)
    return tuple(int(d) for d in value.shape) if value is not None else ()


def _arg(node: torch.fx.Node, index: int, name: str, default=None):
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[index] if len(node.args) > index else default


def _ints(value, count: int, default: int) -> list[int]:
    if value is None or value == []:
        return [default] * count
    if isinstance(value, int):
        return [value] * count
    values = [int(v) for v in value]
    return values * count if len(values) == 1 else values


# Ops that move values without changing them: a quantized value read through them (a bmm
# of views of dequantized tensors) keeps its data type.
_DATA_MOVEMENT = frozenset(
    f"aten.{name}"
    for name in (
        "view_copy.default",
        "view.default",
        "reshape.default",
        "permute_copy.default",
        "permute.default",
        "transpose.int",
        "squeeze_copy.dims",
        "unsqueeze_copy.default",
        "expand_copy.default",
        "clone.default",
    )
)


def _through_data_movement(node: torch.fx.Node, step) -> list[torch.fx.Node]:
    """``node`` and what it reaches through data-movement ops, following ``step``."""
    reached, frontier = [], [node]
    while frontier:
        current = frontier.pop()
        reached.append(current)
        if current.op == "call_function" and op_name(current.target) in _DATA_MOVEMENT:
            frontier.extend(step(current))
    return reached


def activation_dtype(node: torch.fx.Node) -> str:
    """The integer type the NPU computes ``node`` in: the widest quantized input or output."""
    found = []
    for arg in node.all_input_nodes:
        for source in _through_data_movement(arg, lambda n: n.all_input_nodes[:1]):
            if is_dequantize(source):
                found.append(qdq_dtype(source))
    for user in node.users:
        for reader in _through_data_movement(user, lambda n: list(n.users)):
            if is_quantize(reader):
                found.append(qdq_dtype(reader))
    value = _value(node)
    if not found and value is not None and not value.dtype.is_floating_point:
        found.append(value.dtype)
    if not found:
        return "int8"
    return _dtype_name(max(found, key=lambda d: d.itemsize))


def constant_names(program) -> frozenset[str]:
    """Placeholders of ``program`` that hold parameters, buffers or constants."""
    return frozenset(
        spec.arg.name for spec in program.graph_signature.input_specs if spec.kind.name != "USER_INPUT"
    )


@dataclasses.dataclass
class Target:
    """What a rule needs to know: the NPU family and the program's constant placeholders."""

    family: str  # "u55", "u65", "u85"
    constants: frozenset[str] = frozenset()

    def is_constant(self, node) -> bool:
        """A parameter or constant (possibly behind a dequantize): weights the NPU encodes."""
        if isinstance(node, torch.fx.Node) and is_dequantize(node):
            node = node.args[0]
        return isinstance(node, torch.fx.Node) and node.op == "placeholder" and node.name in self.constants


# --- per-operator rules -----------------------------------------------------------------
def _convolution(node: torch.fx.Node, target: Target) -> str | None:
    x, weight = _shape(node.args[0]), _shape(node.args[1])
    if len(x) < 3 or len(weight) != len(x):
        return None
    spatial = len(x) - 2
    stride = _ints(_arg(node, 3, "stride"), spatial, 1)
    padding = _ints(_arg(node, 4, "padding"), spatial, 0)
    dilation = _ints(_arg(node, 5, "dilation"), spatial, 1)
    transposed = bool(_arg(node, 6, "transposed", False))
    groups = int(_arg(node, 8, "groups", 1))
    if spatial == 3 and npu_rules.is_u55_class(target.family) and weight[2] != 1:
        return f"3-D convolution with kernel depth {weight[2]}: Ethos-U55/U65 need kernel depth 1"
    if transposed:
        if spatial != 2:
            return None
        if not target.is_constant(node.args[1]):
            return "transposed convolution with non-constant weights: the NPU encodes weights at compile time"
        return npu_rules.transpose_convolution_reason(target.family, stride, x[2:], weight[2:])
    if spatial == 1:  # lowered as 2-D with height 1
        stride, padding, dilation = [1, *stride], [0, *padding], [1, *dilation]
    depthwise = groups > 1 and groups == x[1]
    # Strides above 3 (U55/U65): the backend moves the padding of an undilated CONV2D into a
    # PAD, and runs other convolutions at stride 1 and subsamples (ethosu/passes/).
    stride = [min(s, npu_rules.MAX_NATIVE_STRIDE) for s in stride]
    return npu_rules.convolution_reason(target.family, stride[-2:], dilation[-2:], padding[-2:], depthwise, x[1])


def _pool_parameters(node: torch.fx.Node, spatial: int):
    x = _shape(node.args[0])
    kernel = _ints(_arg(node, 1, "kernel_size"), spatial, 1)
    stride = _ints(_arg(node, 2, "stride"), spatial, 0)
    stride = [s or k for s, k in zip(stride, kernel)]
    padding = _ints(_arg(node, 3, "padding"), spatial, 0)
    result = node.meta.get("val")
    if isinstance(result, (list, tuple)):  # max_pool2d_with_indices: (values, indices)
        result = result[0]
    out = tuple(result.shape) if isinstance(result, torch.Tensor) else ()
    # ceil_mode can read past the input: that is padding too.
    extra = [
        max(0, (o - 1) * s + k - (i + 2 * p)) if o else 0
        for o, s, k, i, p in zip(out[-spatial:], stride, kernel, x[-spatial:], padding)
    ]
    return x, kernel, stride, [p + e for p, e in zip(padding, extra)]


def _pool(kind: str, spatial: int) -> NodeRule:
    def rule(node: torch.fx.Node, target: Target) -> str | None:
        x, kernel, stride, padding = _pool_parameters(node, spatial)
        if len(x) < spatial + 1:
            return None
        if kind == "avg":
            # The INT lowering sums windows with a DEPTHWISE_CONV2D of unit weights, whose
            # strides above 3 the backend handles (passes/subsample_strided_convolutions.py).
            return npu_rules.channels_reason(x[-spatial - 1], "average pooling")
        # Padded max pools with strides above 3 get an explicit PAD (passes/pad_strided_max_pools.py).
        stride = [min(s, npu_rules.MAX_NATIVE_STRIDE) for s in stride]
        return npu_rules.pool_reason(target.family, kind, kernel, stride, padding, x[-spatial - 1])

    return rule


def _adaptive_pool(node: torch.fx.Node, target: Target) -> str | None:
    x = _shape(node.args[0])
    return npu_rules.channels_reason(x[-3], "average pooling") if len(x) >= 3 else None


def _linear(node: torch.fx.Node, target: Target) -> str | None:
    """A linear layer is a convolution reading its input features as channels."""
    x = _shape(node.args[0])
    return npu_rules.channels_reason(x[-1], "the linear layer") if x else None


_TRANSPOSES = ("aten.permute_copy.default", "aten.permute.default", "aten.t_copy.default", "aten.t.default")


def _is_weight(node, target: Target) -> bool:
    """A constant right-hand side, possibly transposed (a decomposed linear layer's weight)."""
    if isinstance(node, torch.fx.Node) and node.op == "call_function" and op_name(node.target) in _TRANSPOSES:
        node = node.args[0]
    return target.is_constant(node)


def _matmul(node: torch.fx.Node, target: Target) -> str | None:
    with_bias = op_name(node.target).startswith(("aten.addmm", "aten.baddbmm"))  # (bias, a, b)
    a, b = node.args[1:3] if with_bias else node.args[:2]
    a_shape, b_shape = _shape(a), _shape(b)
    if _is_weight(b, target):  # weights are lowered as convolutions
        return npu_rules.channels_reason(a_shape[-1], "the matrix product with weights") if a_shape else None
    if len(a_shape) < 2 or len(b_shape) < 2:
        return None
    return npu_rules.matmul_reason(target.family, activation_dtype(node), a_shape[-1], b_shape[-1])


def _argmax(node: torch.fx.Node, target: Target) -> str | None:
    x = _shape(node.args[0])
    dim = _arg(node, 1, "dim")
    if dim is None:
        return npu_rules.argmax_reason(target.family, (math.prod(x),), 0)
    return npu_rules.argmax_reason(target.family, x, int(dim))


def _reduction(node: torch.fx.Node, target: Target) -> str | None:
    shape = list(_shape(node.args[0]))
    dims = _arg(node, 1, "dim")
    if not shape:
        return None
    dims = range(len(shape)) if dims in (None, []) else ([dims] if isinstance(dims, int) else dims)
    reduced = {d % len(shape) for d in dims}
    # The lowering merges runs of neighbouring axes that are all summed or all kept
    # (operators/reduction.py), unless no two summed axes are neighbours.
    runs: list[list] = []
    for axis, size in enumerate(shape):
        if runs and runs[-1][0] == (axis in reduced):
            runs[-1][1] *= size
        else:
            runs.append([axis in reduced, size])
    if sum(summed for summed, _ in runs) == len(reduced):
        runs = [[axis in reduced, size] for axis, size in enumerate(shape)]
    merged = [size for _, size in runs]
    for axis, (summed, _) in enumerate(runs):
        if summed:
            reason = npu_rules.reduce_sum_reason(target.family, merged, axis)
            if reason:
                return reason
            merged[axis] = 1
    return None


def _flip(node: torch.fx.Node, target: Target) -> str | None:
    rank = len(_shape(node.args[0]))
    for dim in _arg(node, 1, "dims", []) or []:
        reason = npu_rules.reverse_reason(target.family, rank, int(dim))
        if reason:
            return reason
    return None


def _resize(node: torch.fx.Node, target: Target) -> str | None:
    x, out = _shape(node.args[0]), _shape(node)
    if len(x) != 4 or len(out) != 4:
        return None
    bilinear = op_name(node.target).startswith("aten.upsample_bilinear2d")
    if bilinear and _arg(node, 2, "align_corners", False):
        scales = (out[2] - 1) / max(1, x[2] - 1), (out[3] - 1) / max(1, x[3] - 1)
    else:
        scales = out[2] / x[2], out[3] / x[3]
    return npu_rules.resize_reason(target.family, *scales, bilinear=bilinear)


def _permute(node: torch.fx.Node, target: Target) -> str | None:
    dims = _arg(node, 1, "dims", [])
    return npu_rules.transpose_reason(target.family, _shape(node.args[0]), list(dims), activation_dtype(node))


def _gather_scatter(node: torch.fx.Node, target: Target) -> str | None:
    if npu_rules.is_u55_class(target.family):
        return f"{op_name(node.target)} needs TOSA GATHER/SCATTER, which Ethos-U55/U65 do not run"
    return None


def _is_quantized(node: torch.fx.Node) -> bool:
    """Computes on quantized values (a float op between Q/DQ nodes), not on integer data."""
    values = [_value(a) for a in node.all_input_nodes] + _used_results(node)
    return any(v is not None and v.dtype.is_floating_point for v in values)


def _one_value_constant(arg, target: Target) -> bool:
    """A number, or a constant tensor holding one value (the INT lowering folds those in)."""
    if not isinstance(arg, torch.fx.Node):
        return True
    return target.is_constant(arg) and math.prod(_shape(arg)) == 1


def _pair_lookup(node: torch.fx.Node, target: Target) -> bool:
    """Whether a quantized function of two operands is a lookup of both (quantized_lookup.py's
    binary_function_lookup): unless one operand is a folded constant and the other has the
    result's shape."""
    a, b = node.args[0], node.args[1] if len(node.args) > 1 else None
    out = _shape(node)
    if _one_value_constant(b, target) and _shape(a) == out:
        return False
    return not (_one_value_constant(a, target) and isinstance(b, torch.fx.Node) and _shape(b) == out)


def _lookup_reason(node: torch.fx.Node, target: Target) -> str | None:
    """div with a rounding mode, remainder, fmod and pow of quantized values: a TABLE of one
    operand (int8; on int16 these steps and powers are exact GATHERs of every value), or a
    GATHER of a table of every pair."""
    if not _is_quantized(node):
        return None
    if not _pair_lookup(node, target):
        dtype = activation_dtype(node)
        if dtype == "int16":
            what = f"{op_name(node.target)} of int16 values (an exact lookup of every value)"
            return npu_rules.u55_operator_reason(target.family, "GATHER", what)
        return npu_rules.table_reason(target.family, dtype)
    return npu_rules.u55_operator_reason(
        target.family, "GATHER", f"{op_name(node.target)} of two tensors (a lookup in a table of every pair of values)"
    )


def _division(node: torch.fx.Node, target: Target) -> str | None:
    name = op_name(node.target)
    if not _is_quantized(node):
        return npu_rules.u55_operator_reason(target.family, "INTDIV", f"integer {name}")
    mode = node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None)
    if mode is not None or name.startswith(("aten.remainder", "aten.fmod", "aten.pow")):
        return _lookup_reason(node, target)
    if _one_value_constant(node.args[1], target):
        return None  # a RESCALE, or a TABLE for a negative divisor
    return npu_rules.u55_operator_reason(target.family, "INTDIV", f"{name} by a tensor")


def _attention(node: torch.fx.Node, target: Target) -> str | None:
    """scaled_dot_product_attention kept whole: two products of feature maps, q k^T and w v."""
    query, key, value = (_shape(arg) for arg in node.args[:3])
    if len(query) < 2 or len(key) < 2 or len(value) < 2:
        return None
    dtype = activation_dtype(node)
    return npu_rules.matmul_reason(target.family, dtype, query[-1], key[-2]) or npu_rules.matmul_reason(
        target.family, dtype, key[-2], value[-1]
    )


def _softmax(node: torch.fx.Node, target: Target) -> str | None:
    if _is_quantized(node) and activation_dtype(node) == "int16":
        reason = npu_rules.narrowing_cast_reason(target.family, "int32", "int16")
        return f"{op_name(node.target)} on int16 values ({reason})" if reason else None
    return None


def _glu(node: torch.fx.Node, target: Target) -> str | None:
    what = "glu's sigmoid gate (an int32 look-up: TOSA GATHER for int8, an int16 TABLE for int16)"
    return npu_rules.u55_operator_reason(target.family, "GATHER or int16 TABLE", what)


def _bitwise(node: torch.fx.Node, target: Target) -> str | None:
    if _value(node) is not None and _value(node).dtype == torch.bool:
        return None  # logical operators: the boolean rule speaks for them
    tosa_op = "BITWISE_" + op_name(node.target).split(".")[1].removeprefix("bitwise_").upper()
    return npu_rules.u55_operator_reason(target.family, tosa_op, op_name(node.target))


def _shift(node: torch.fx.Node, target: Target) -> str | None:
    return npu_rules.int32_only_reason(target.family, activation_dtype(node), op_name(node.target))


def _reduce_extreme(node: torch.fx.Node, target: Target) -> str | None:
    if _is_quantized(node):
        return _dropped_axis_minimum(node, target)
    dtype = _dtype_name(_value(node.args[0]).dtype) if _value(node.args[0]) is not None else "int8"
    return npu_rules.reduce_extreme_reason(target.family, dtype, op_name(node.target))


# Minima over an axis, which keepdim=False (their default, args[2]) lowers to REDUCE_MIN and a RESHAPE.
_MINIMA_OVER_AXES = ("aten.amin.default", "aten.min.dim")


def _dropped_axis_minimum(node: torch.fx.Node, target: Target) -> str | None:
    name = op_name(node.target)
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    if name not in _MINIMA_OVER_AXES or keepdim:
        return None
    return npu_rules.reshaped_minimum_reason(target.family, activation_dtype(node), name)


def _integer_product(node: torch.fx.Node, target: Target) -> str | None:
    if _is_quantized(node) or _value(node) is None:
        return None  # quantized products multiply values the lowering bounds, which fit
    return npu_rules.integer_product_reason(_dtype_name(_value(node).dtype), op_name(node.target))


def _triangle(node: torch.fx.Node, target: Target) -> str | None:
    return npu_rules.u55_operator_reason(target.family, "SELECT", f"{op_name(node.target)} (a mask)")


def _cast(node: torch.fx.Node, target: Target) -> str | None:
    source, result = _value(node.args[0]), _value(node)
    if source is None or result is None or _is_quantized(node):
        return None
    return npu_rules.narrowing_cast_reason(target.family, _dtype_name(source.dtype), _dtype_name(result.dtype))


_RULES: dict[str, NodeRule] = {
    "aten.convolution.default": _convolution,
    "aten.max_pool2d_with_indices.default": _pool("max", 2),
    "aten.max_pool2d.default": _pool("max", 2),
    "aten.max_pool1d.default": _pool("max", 1),
    "aten.avg_pool2d.default": _pool("avg", 2),
    "aten.avg_pool1d.default": _pool("avg", 1),
    "aten.adaptive_avg_pool2d.default": _adaptive_pool,
    "aten._adaptive_avg_pool2d.default": _adaptive_pool,
    "aten.linear.default": _linear,
    "aten.bmm.default": _matmul,
    "aten.mm.default": _matmul,
    "aten.matmul.default": _matmul,
    "aten.addmm.default": _matmul,
    "aten.baddbmm.default": _matmul,
    "aten.argmax.default": _argmax,
    "aten.argmin.default": _argmax,
    "aten.sum.dim_IntList": _reduction,
    "aten.mean.dim": _reduction,
    "aten.flip.default": _flip,
    "aten.upsample_nearest2d.vec": _resize,
    "aten.upsample_nearest2d.default": _resize,
    "aten.upsample_bilinear2d.vec": _resize,
    "aten.upsample_bilinear2d.default": _resize,
    "aten.permute.default": _permute,
    "aten.permute_copy.default": _permute,
    "aten.div.Tensor": _division,
    "aten.div.Scalar": _division,
    "aten.div.Tensor_mode": _division,
    "aten.div.Scalar_mode": _division,
    "aten.remainder.Tensor": _division,
    "aten.remainder.Scalar": _division,
    "aten.fmod.Tensor": _division,
    "aten.fmod.Scalar": _division,
    "aten.pow.Tensor_Tensor": _lookup_reason,
    "aten.pow.Tensor_Scalar": _lookup_reason,
    "aten.pow.Scalar": _lookup_reason,
    "aten.glu.default": _glu,
    "aten.scaled_dot_product_attention.default": _attention,
    "aten._softmax.default": _softmax,
    "aten._log_softmax.default": _softmax,
    "aten.softmax.int": _softmax,
    "aten.log_softmax.int": _softmax,
    "aten.mul.Tensor": _integer_product,
    "aten.mul.Scalar": _integer_product,
    "aten.tril.default": _triangle,
    "aten.triu.default": _triangle,
    "aten.amax.default": _reduce_extreme,
    "aten.amin.default": _reduce_extreme,
    "aten.max.dim": _reduce_extreme,
    "aten.min.dim": _reduce_extreme,
    "aten.max.default": _reduce_extreme,
    "aten.min.default": _reduce_extreme,
    "aten._to_copy.default": _cast,
    "dim_order_ops._to_dim_order_copy.default": _cast,
}
for _name in ("and", "or", "xor"):
    _RULES[f"aten.bitwise_{_name}.Tensor"] = _RULES[f"aten.bitwise_{_name}.Scalar"] = _bitwise
_RULES["aten.bitwise_not.default"] = _bitwise
for _name in (
    "aten.__lshift__.Scalar", "aten.__lshift__.Tensor", "aten.__rshift__.Scalar", "aten.__rshift__.Tensor",
    "aten.bitwise_left_shift.Tensor", "aten.bitwise_left_shift.Tensor_Scalar", "aten.bitwise_left_shift.Scalar_Tensor",
    "aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar", "aten.bitwise_right_shift.Scalar_Tensor",
):  # fmt: skip
    _RULES[_name] = _shift


def _used_results(node: torch.fx.Node) -> list[torch.Tensor]:
    """The results of ``node`` something reads (a multi-output node's unread ones, such as
    max_pool2d_with_indices' indices, are never computed)."""
    results = node.meta.get("val")
    if not isinstance(results, (list, tuple)):
        return [results] if isinstance(results, torch.Tensor) else []
    read = {user.args[1] for user in node.users if user.target is operator.getitem}
    return [r for i, r in enumerate(results) if isinstance(r, torch.Tensor) and i in read]


def _tensor_reason(node: torch.fx.Node, target: Target) -> str | None:
    """Ranks and data types of every tensor the node reads or writes."""
    values = [("an input", a, _value(a)) for a in node.all_input_nodes]
    values += [("the output", None, r) for r in _used_results(node)]
    for what, source, value in values:
        if value is None:
            continue
        if value.dtype == torch.int64 and target.is_constant(source):
            continue  # a constant: lowered as a (narrowed) TOSA constant, not a partition input
        reason = npu_rules.rank_reason(tuple(value.shape), what) or npu_rules.dtype_reason(
            target.family, _dtype_name(value.dtype), what
        )
        if reason:
            return reason
    return None


def _lookup_qparams(node: torch.fx.Node) -> tuple[QuantParams, QuantParams] | None:
    """(input, output) parameters of a quantized unary node at partition time: its
    dequantized argument 0 and its one quantized result."""
    source = node.args[0] if node.args else None
    readers = list(node.users)
    if not is_dequantize(source) or len(readers) != 1 or not is_quantize(readers[0]):
        return None
    return qparams_of(source), qparams_of(readers[0])


def _table_reason(node: torch.fx.Node, target: Target) -> str | None:
    """Functions the INT lowering looks up: a TABLE for int8, an int16 TABLE or GATHER for int16.

    An int16 function the interpolated TABLE cannot follow closely is an exact GATHER of
    every value (quantized_lookup.int16_table_entries), which Ethos-U55/U65 do not run."""
    visitor = visitor_for(node)
    if not isinstance(visitor, (TableLowering, LookupLowering)) or not _is_quantized(node):
        return None
    dtype = activation_dtype(node)
    reason = npu_rules.table_reason(target.family, dtype)
    qparams = _lookup_qparams(node)
    if reason or dtype != "int16" or not npu_rules.is_u55_class(target.family) or qparams is None:
        return reason
    fn = visitor.table_function if isinstance(visitor, TableLowering) else visitor.quantized_function(node)
    if int16_table_entries(fn, *qparams) is None:
        return (
            f"{op_name(node.target)} on int16 values needs an exact 65536-entry lookup (GATHER: its interpolated "
            "table strays too far), which Ethos-U55/U65 do not run"
        )
    return None


def node_reason(node: torch.fx.Node, target: Target) -> str | None:
    """Why ``node`` cannot run on the NPU ``target`` describes, or None."""
    if node.op != "call_function" or is_quantize(node) or is_dequantize(node):
        return None
    try:
        return _reason(node, target)
    except Exception as exc:  # a node shape a rule did not foresee: keep it on CPU, say why
        return f"could not check {op_name(node.target)} for Ethos-U ({type(exc).__name__}: {exc})"


def _reason(node: torch.fx.Node, target: Target) -> str | None:
    name = op_name(node.target)
    reason = _tensor_reason(node, target)
    if reason is None and name.startswith(_GATHER_SCATTER_PREFIXES):
        reason = _gather_scatter(node, target)
    if reason is None and name in _RULES:
        reason = _RULES[name](node, target)
    if reason is None:
        reason = _table_reason(node, target)
    return reason
