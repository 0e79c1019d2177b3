"""Functions of quantized tensors as lookups (TOSA INT profile).

A function of one int8/int16 tensor is a function of at most 65536 integers, so it is
tabulated at compile time with torch's own dequantize, function and quantize ops, which
makes the lookup bit-exact with the PT2E-quantized model:

- int8: one TABLE (256 entries).
- int16: TOSA's TABLE interpolates 513 entries (int16 extension). It is used where, for
  EVERY int16 input, it stays within ``INT16_TABLE_MAX_LSB`` of the exact result (checked
  at compile time by emulating the TABLE); functions it cannot follow (steps such as floor
  or sign, slopes that blow up such as sqrt or log near 0) get an exact GATHER from a
  65536-entry table instead (128 KB of int16 constants).
- ``int32_lookup``: a function of an int8 tensor as int32 in a chosen unit (an int8 TABLE per
  base-256 digit, summed), for products that need more than 8 bits of it (glu's sigmoid).
- ``pair_lookup``: a function of two int8 tensors, exact: a GATHER from a 65536-entry
  table indexed by both (pow, remainder, fmod of two tensors); ``binary_function_lookup``
  picks it or, with a number operand, ``function_lookup``.

``LookupLowering`` is the mixin a float visitor takes to lower quantized nodes this way
(``PairLookupLowering`` for a binary one, ``Int8LookupLowering`` for int8 only);
``QuantizedBranch`` is their base for visitors with their own integer lowering.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
import tosa_serializer as ts

from etarm.errors import EtarmError
from etarm.lowering.elementwise import output_rank
from etarm.lowering.quantized import (
    int16_table_values,
    is_int_spec,
    is_quantized,
    one_value_constant,
    rescale,
)
from etarm.op_names import op_name
from etarm.tosa_ir.graph import TosaGraph, TosaTensor
from etarm.tosa_ir.quant_params import QuantParams, input_qparams, is_dequantize, output_qparams, qdq_dtype

Function = Callable[[torch.Tensor], torch.Tensor]
PairFunction = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

# The interpolated int16 TABLE is kept where it is this close to the exact lookup.
INT16_TABLE_MAX_LSB = 2
# int16 TABLE: 513 entries, 128 inputs per segment, result with 7 fractional bits.
_SEGMENT_BITS = 7
INT16_TABLE_ENTRIES = (1 << (16 - _SEGMENT_BITS)) + 1
_TOSA_INT = {torch.int8: ts.DType.INT8, torch.int16: ts.DType.INT16}


# --- tabulating -------------------------------------------------------------------------
def every_value(qparams: QuantParams) -> torch.Tensor:
    """Each integer of ``qparams``' type, lowest first, dequantized as the model does."""
    info = torch.iinfo(qparams.dtype)
    integers = torch.arange(info.min, info.max + 1, dtype=torch.int32).to(qparams.dtype)
    return qparams.dequantize(integers)


def exact_values(fn: Function, source: QuantParams, target: QuantParams) -> np.ndarray:
    """``quantize(fn(dequantize(q)))`` for every q of ``source``'s type, lowest q first."""
    with torch.no_grad():
        return target.quantize(fn(every_value(source))).numpy()


def interpolated_table_outputs(entries: np.ndarray) -> np.ndarray:
    """What an int16 TABLE of ``entries`` and the 1/128 RESCALE after it give for every
    int16 input, lowest first (the TOSA 1.0 ``apply_lookup_s`` arithmetic)."""
    offsets = np.arange(1 << 16, dtype=np.int64)
    index, fraction = offsets >> _SEGMENT_BITS, offsets & ((1 << _SEGMENT_BITS) - 1)
    base = entries[index].astype(np.int64)
    slope = entries[index + 1].astype(np.int64) - base
    interpolated = (base << _SEGMENT_BITS) + slope * fraction
    # RESCALE by 2**-7 with SINGLE_ROUND rounds half up.
    return np.clip((interpolated + (1 << (_SEGMENT_BITS - 1))) >> _SEGMENT_BITS, -32768, 32767)


def int16_table_entries(fn: Function, source: QuantParams, target: QuantParams) -> np.ndarray | None:
    """The 513 TABLE entries for ``fn`` if interpolating them stays within
    ``INT16_TABLE_MAX_LSB`` of the exact result for every int16 input, else None."""
    if int(source.zero_point) != 0 or int(target.zero_point) != 0:
        return None  # TOSA's int16 TABLE and RESCALE take zero point 0 only
    with torch.no_grad():
        real = fn(every_value(source))
    defined = ~torch.isnan(real).numpy()
    with np.errstate(invalid="ignore"):
        entries = int16_table_values(lambda x: torch.nan_to_num(fn(x), nan=0.0), source, target)
    slopes = np.diff(entries.astype(np.int64))
    if np.abs(slopes).max() > 32767:  # TOSA REQUIREs each segment's slope to fit int16
        return None
    exact = target.quantize(real).numpy().astype(np.int64)
    error = np.abs(interpolated_table_outputs(entries) - exact)[defined]
    if error.size and error.max() > INT16_TABLE_MAX_LSB:
        return None
    return entries


def lookup_table_values(fn: Function, source: QuantParams, target: QuantParams) -> np.ndarray:
    """The table ``function_lookup`` looks ``fn`` up in (shared with the Cortex-M table op):

    - int8 -> int8: 256 entries, ``quantize(fn(dequantize(q)))`` for q = -128..127 (a TABLE, exact);
    - int16 -> int16: the ``INT16_TABLE_ENTRIES`` entries of an interpolated TABLE where they stay within
      ``INT16_TABLE_MAX_LSB`` of the exact results (``int16_table_entries``), else those 65536 results;
    - other pairs of types: every input's exact result, lowest input first.
    """
    if source.dtype == torch.int16 and target.dtype == torch.int16:
        entries = int16_table_entries(fn, source, target)
        if entries is not None:
            return entries
    return exact_values(fn, source, target)


# --- emitting ---------------------------------------------------------------------------
def lookup_index(graph: TosaGraph, tensor: TosaTensor, scale: float = 1.0) -> TosaTensor:
    """int32 ``(q - lowest value of q's type) * scale``: q's row in a table of every value."""
    if tensor.dtype == ts.DType.INT8:
        return rescale(graph, tensor, scale, ts.DType.INT32, input_zp=-128)
    if tensor.dtype != ts.DType.INT16:
        raise EtarmError(f"cannot look up values of a {tensor.dtype.name} tensor")
    # RESCALE takes no zero point on int16: widen, then shift to 0..65535.
    wide = graph.emit(ts.Op.CAST, [tensor], tensor.shape, ts.DType.INT32)
    offset = graph.const([32768], ts.DType.INT32, shape=(1,) * tensor.rank, stem="offset")
    index = graph.emit(ts.Op.ADD, [wide, offset], tensor.shape, ts.DType.INT32)
    if scale != 1.0:
        index = rescale(graph, index, scale, ts.DType.INT32)
    return index


def gather(graph: TosaGraph, index: TosaTensor, values: np.ndarray, dtype) -> TosaTensor:
    """``values[index]`` elementwise, for an int32 ``index`` tensor of any shape (TOSA GATHER)."""
    count = int(np.prod(index.shape, dtype=np.int64))
    table = graph.const(np.asarray(values).reshape(1, -1, 1), dtype, stem="lookup")
    rows = graph.reshape(index, (1, count))
    found = graph.emit(ts.Op.GATHER, [table, rows], (1, count, 1), dtype)
    return graph.reshape(found, index.shape)


def function_lookup(graph: TosaGraph, node: torch.fx.Node, fn: Function, index: int = 0) -> TosaTensor:
    """``node``'s output = ``fn(argument index)``, both quantized: a TABLE where it is exact
    (int8) or close (int16, see ``int16_table_entries``), else an exact GATHER."""
    source, target = input_qparams(node, index), output_qparams(node)
    tensor = graph.value(node.args[index])
    values = lookup_table_values(fn, source, target)
    if source.dtype == torch.int8 and target.dtype == torch.int8:
        table = graph.const(values, ts.DType.INT8, stem="table")
        out = graph.out(node)
        graph.op(ts.Op.TABLE, [tensor, table], [out])
        return out
    if source.dtype == torch.int16 and len(values) == INT16_TABLE_ENTRIES:
        table = graph.const(values, ts.DType.INT16, stem="table")
        interpolated = graph.emit(ts.Op.TABLE, [tensor, table], tensor.shape, ts.DType.INT32)
        return rescale(graph, interpolated, 2.0**-_SEGMENT_BITS, ts.DType.INT16, out=graph.out(node))
    result = gather(graph, lookup_index(graph, tensor), values, _TOSA_INT[target.dtype])
    graph.bind(node, result)
    return result


def int32_lookup(graph: TosaGraph, tensor: TosaTensor, source: QuantParams, fn: Function, unit: float) -> TosaTensor:
    """int32 ``round(fn(dequantize(tensor)) / unit)`` for an int8 tensor: one int8 TABLE per
    base-256 digit of the values, each RESCALEd to int32 at its weight and summed. Ethos-U85
    runs a TABLE and an int32 ADD per element far faster than an int32 GATHER."""
    if source.dtype != torch.int8:
        raise EtarmError("an int32 lookup needs an int8 tensor")
    with torch.no_grad():
        values = torch.round(fn(every_value(source)).to(torch.float64) / unit)
    values = values.numpy().astype(np.int64)
    if np.abs(values).max() >= 2**30:  # four digits, and every partial sum, stay within int32
        raise EtarmError(f"an int32 lookup's values must stay below 2**30 in magnitude, not {np.abs(values).max()}")
    total = None
    for position, digits in enumerate(balanced_digits(values)):
        table = graph.const(digits, ts.DType.INT8, stem="digit_table")
        digit = graph.emit(ts.Op.TABLE, [tensor, table], tensor.shape, ts.DType.INT8)
        weighted = rescale(graph, digit, float(256**position), ts.DType.INT32)
        total = weighted if total is None else graph.emit(ts.Op.ADD, [total, weighted], tensor.shape, ts.DType.INT32)
    return total


def balanced_digits(values: np.ndarray) -> list[np.ndarray]:
    """int8 digits d_k in [-128, 127], lowest first, with ``values = sum(d_k * 256**k)``
    (as few as the values need, at least one)."""
    rest = np.asarray(values, dtype=np.int64)
    digits = []
    while True:
        digit = (rest + 128) % 256 - 128
        digits.append(digit.astype(np.int8))
        rest = (rest - digit) // 256
        if not rest.any():
            return digits


def pair_lookup(graph: TosaGraph, node: torch.fx.Node, fn: PairFunction) -> TosaTensor:
    """``node``'s output = ``fn(argument 0, argument 1)`` for two int8 tensors (broadcast),
    exact: a GATHER from the 256 x 256 results, indexed by both operands."""
    sources = [input_qparams(node, 0), input_qparams(node, 1)]
    target = output_qparams(node)
    if any(q.dtype != torch.int8 for q in sources):
        raise EtarmError(f"{node.name}: a lookup of two operands needs int8 tensors")
    rank = output_rank(node)
    rows = lookup_index(graph, graph.to_rank(graph.value(node.args[0]), rank), 256.0)
    columns = lookup_index(graph, graph.to_rank(graph.value(node.args[1]), rank))
    shape = tuple(max(a, b) for a, b in zip(rows.shape, columns.shape))
    index = graph.emit(ts.Op.ADD, [rows, columns], shape, ts.DType.INT32)
    a, b = every_value(sources[0]), every_value(sources[1])
    with torch.no_grad():
        values = target.quantize(fn(a[:, None], b[None, :])).numpy().reshape(-1)
    result = gather(graph, index, values, _TOSA_INT[target.dtype])
    result = graph.reshape(result, tuple(node.meta["val"].shape))
    graph.bind(node, result)
    return result


def binary_function_lookup(graph: TosaGraph, node: torch.fx.Node, fn: PairFunction) -> TosaTensor:
    """``node``'s output = ``fn(argument 0, argument 1)``: a function of one tensor when the
    other argument is a number or a one-value constant, else of both (int8, ``pair_lookup``)."""
    a, b = (one_value_constant(graph, node, index) for index in (0, 1))
    shape = tuple(node.meta["val"].shape)
    if b is not None and graph.value(node.args[0]).shape == shape:
        return function_lookup(graph, node, lambda x: fn(x, b))
    if a is not None and graph.value(node.args[1]).shape == shape:
        return function_lookup(graph, node, lambda x: fn(a, x), index=1)
    return pair_lookup(graph, node, fn)


# --- visitors ------------------------------------------------------------------------------
def int8_operands_reason(node: torch.fx.Node, what: str) -> str | None:
    """Why ``pair_lookup`` cannot take ``node``: both tensor operands must be dequantized
    from int8 (a table of every pair of int16 values would have 2**32 entries)."""
    for arg in node.args[:2]:
        if not isinstance(arg, torch.fx.Node):
            continue
        dtype = qdq_dtype(arg) if is_dequantize(arg) else None
        if dtype != torch.int8:
            found = str(dtype).replace("torch.", "") if dtype is not None else "not dequantized from an integer tensor"
            return (
                f"{op_name(node.target)}: {what} is lowered as a table of every pair of int8 values, "
                f"but operand '{arg.name}' is {found}"
            )
    return None


def is_float_node(node) -> bool:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point


def unquantized_operand_reason(node: torch.fx.Node, args) -> str | None:
    """Why an op on quantized values cannot take ``args``: a tensor operand that is not float
    (so it carries no quantization parameters)."""
    for arg in args:
        if isinstance(arg, torch.fx.Node) and not is_float_node(arg):
            return f"{op_name(node.target)}: operand '{arg.name}' is not a float tensor, so it is not quantized"
    return None


class QuantizedBranch:
    """Mixin for a visitor with an FP lowering that also lowers quantized nodes (INT).

    List it before the FP base class (it adds "INT" to ``profiles``). ``parameter_reason``
    checks the op's parameters for both profiles. Under an INT-only spec a float node is
    lowered quantized (the partitioner checks its quantization parameters), so only
    ``quantized_reason`` applies; integer (int32) nodes keep the FP base class's checks
    and lowering, whose int32 rules name the profiles they need. A visitor without such
    a base class overrides ``unquantized_reason`` and ``define_unquantized`` instead.
    (quantized.QuantizedLowering is the simpler form: it skips every check for INT specs.)
    """

    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def parameter_reason(self, node: torch.fx.Node) -> str | None:
        return None

    def quantized_reason(self, node: torch.fx.Node, spec) -> str | None:
        return unquantized_operand_reason(node, node.args)

    def check(self, node, spec):
        reason = self.parameter_reason(node)
        if reason is not None:
            return reason
        if is_int_spec(spec) and is_float_node(node):
            return self.quantized_reason(node, spec)
        return self.unquantized_reason(node, spec)

    def unquantized_reason(self, node: torch.fx.Node, spec) -> str | None:
        """The FP lowering's checks (float nodes, and int32 ones under any profile)."""
        return super().check(node, spec)

    def define(self, node, graph):
        if is_quantized(node):
            self.define_quantized(node, graph)
        else:
            self.define_unquantized(node, graph)

    def define_quantized(self, node: torch.fx.Node, graph: TosaGraph) -> None:
        raise NotImplementedError

    def define_unquantized(self, node: torch.fx.Node, graph: TosaGraph) -> None:
        """The FP lowering (float nodes, and int32 ones): the base class's by default."""
        super().define(node, graph)


class LookupLowering(QuantizedBranch):
    """A float visitor's INT lowering as ``function_lookup`` of ``quantized_function(node)``,
    a function of argument ``tensor_index`` with the node's other parameters folded in.

    The function must compute exactly what the quantized model runs in eager (the same
    torch op), so that the int8 TABLE is bit-exact; by default it is ``function``.
    """

    tensor_index = 0
    function: Function  # e.g. torch.exp (a builtin; a Python function needs staticmethod)

    def quantized_function(self, node: torch.fx.Node) -> Function:
        return self.function

    def define_quantized(self, node, graph):
        function_lookup(graph, node, self.quantized_function(node), self.tensor_index)


class PairLookupLowering(QuantizedBranch):
    """A binary float visitor's INT lowering as ``binary_function_lookup`` of ``function``
    (torch's op): a function of one tensor when the other operand is a number, else of two
    int8 tensors (a table of every pair, exact; two int16 tensors are rejected).
    """

    function: PairFunction  # a builtin such as torch.pow (a Python function needs staticmethod)
    pair_description: str  # the two-tensor case in the rejection, e.g. "a remainder of two tensors"

    def quantized_reason(self, node, spec):
        reason = super().quantized_reason(node, spec)
        if reason is None and all(isinstance(a, torch.fx.Node) for a in node.args[:2]):
            return int8_operands_reason(node, self.pair_description)
        return reason

    def define_quantized(self, node, graph):
        binary_function_lookup(graph, node, self.function)


class Int8LookupLowering(QuantizedBranch):
    """INT lowering of a unary op TOSA computes exactly on integers: int8 is a TABLE of
    ``function`` (exact); int16, which TOSA's TABLE would only interpolate, is the op on the
    integers (``define_int16``).
    """

    function: Function

    def define_quantized(self, node, graph):
        source, target = input_qparams(node, 0), output_qparams(node)
        if source.dtype == torch.int8:
            function_lookup(graph, node, self.function)
        else:
            self.define_int16(graph, node, graph.value(node.args[0]), source, target)

    def define_int16(
        self, graph: TosaGraph, node: torch.fx.Node, x: TosaTensor, source: QuantParams, target: QuantParams
    ) -> None:
        raise NotImplementedError
