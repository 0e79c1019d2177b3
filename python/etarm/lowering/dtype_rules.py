"""Which torch data types an operator may take, and the TOSA 1.0 profile each one needs.

TOSA 1.0 splits data types between profiles per operator: float math is PRO-FP; bool
logic, CONST and int32 ADD/SUB/MUL/INTDIV/logical shifts are in both; int32 EQUAL,
GREATER, SELECT, MAXIMUM, ABS are PRO-INT, but with PRO-FP alone the Composer builds
them exactly from legal ops (int_math), so int32 comparisons, selects and extrema take
either profile. BITWISE_*, arithmetic right shifts and int<->int CAST stay PRO-INT.
A visitor states its rule as ``{kind: profiles}``; ``dtype_reason`` explains a mismatch.

The FP profile's extensions add float types: bf16 (``+bf16``) to every PRO-FP operator, fp8
(``+fp8e4m3``, ``+fp8e5m2``) only to the convolutions, MATMUL, the pools, ARGMAX, data layout,
GATHER/SCATTER, CAST, CONST and IDENTITY (fp8 products accumulate into and return FP16). They
are FLOAT kinds for the rules; a visitor names the ones it lowers (``NodeVisitor.extension_floats``)
and ``extension_float_reason`` checks them and their extension before any rule.
"""

from __future__ import annotations

import torch

from etarm.op_names import op_name
from etarm.tosa_ir.specification import TosaSpecification

FLOAT = "float"
INT = "int32"  # int32, and int64 (narrowed to int32 by the int64 passes before lowering)
SMALL_INT = "int8/int16"
BOOL = "bool"

# torch dtype -> the TOSA 1.0 extension that brings it (FP profile).
EXTENSION_OF_FLOAT = {torch.bfloat16: "bf16", torch.float8_e4m3fn: "fp8e4m3", torch.float8_e5m2: "fp8e5m2"}
_FP8_OPERATORS = "only convolutions, MATMUL, pools, ARGMAX, GATHER/SCATTER, CAST and data layout"
BF16 = frozenset({torch.bfloat16})
FP8 = frozenset({torch.float8_e4m3fn, torch.float8_e5m2})
EXTENSION_FLOATS = BF16 | FP8

_KINDS = {
    torch.float32: FLOAT,
    torch.float16: FLOAT,
    **{dtype: FLOAT for dtype in EXTENSION_FLOATS},
    torch.int8: SMALL_INT,
    torch.int16: SMALL_INT,
    torch.int32: INT,
    torch.int64: INT,
    torch.bool: BOOL,
}

FP = frozenset({"FP"})
PRO_INT = frozenset({"INT"})
ANY_PROFILE = frozenset({"FP", "INT"})

# The usual rules: float math (PRO-FP), plus int32 (natively or composed) and bool.
FLOAT_ONLY = {FLOAT: FP}
FLOAT_OR_INT = {FLOAT: FP, INT: ANY_PROFILE}
ALL_KINDS = {FLOAT: FP, INT: ANY_PROFILE, BOOL: ANY_PROFILE}


def dtype_kind(dtype: torch.dtype) -> str | None:
    return _KINDS.get(dtype)


def is_float(dtype: torch.dtype) -> bool:
    return dtype_kind(dtype) == FLOAT


def is_fp8(dtype: torch.dtype) -> bool:
    return dtype in FP8


def extension_float_reason(op: str, dtypes, spec: TosaSpecification, lowered: frozenset) -> str | None:
    """Why ``op`` cannot take the extension float types among ``dtypes`` under ``spec``: the
    visitor lowers only ``lowered`` of them (what TOSA 1.0 allows the op), each needs its extension."""
    for dtype in dtypes:
        extension = EXTENSION_OF_FLOAT.get(dtype)
        if extension is None:
            continue
        if dtype not in lowered:
            covered = _FP8_OPERATORS if dtype in FP8 else "float operators"
            return f"{op} on {dtype} is not lowered: TOSA 1.0's {extension} extension covers {covered}"
        if not spec.has_extension(extension):
            return f"{op} on {dtype} needs the TOSA {extension} extension (e.g. TOSA-1.0+FP+{extension}), not {spec}"
    return None


def dtype_reason(op: str, dtype: torch.dtype, spec: TosaSpecification, rule: dict) -> str | None:
    """Why ``op`` cannot take ``dtype`` under ``spec`` according to ``rule`` (None if it can)."""
    kind = dtype_kind(dtype)
    if kind is None or kind not in rule:
        allowed = ", ".join(sorted(rule))
        return f"{op} does not support data type {dtype} (supported: {allowed})"
    profiles = rule[kind]
    if not (profiles & spec.profiles):
        return f"{op} on {dtype} needs the TOSA {'/'.join(sorted(profiles))} profile, not {spec}"
    return None


def node_dtypes(node: torch.fx.Node) -> list[torch.dtype]:
    """The dtypes of the node's tensor arguments and of its result."""
    dtypes = []
    for arg in list(node.args) + list(node.kwargs.values()):
        if isinstance(arg, torch.fx.Node) and isinstance(arg.meta.get("val"), torch.Tensor):
            dtypes.append(arg.meta["val"].dtype)
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        dtypes.append(val.dtype)
    return dtypes


def every_tensor_dtype(node: torch.fx.Node) -> list[torch.dtype]:
    """The dtypes of every tensor the node reads (also inside lists, as cat's) or produces."""
    values = [arg.meta.get("val") for arg in node.all_input_nodes]
    results = node.meta.get("val")
    values += results if isinstance(results, (list, tuple)) else [results]
    return [value.dtype for value in values if isinstance(value, torch.Tensor)]


def first_reason(op: str, dtypes, spec: TosaSpecification, rule: dict) -> str | None:
    for dtype in dtypes:
        reason = dtype_reason(op, dtype, spec, rule)
        if reason:
            return reason
    return None


def tensor_args_reason(node: torch.fx.Node, spec: TosaSpecification, rule: dict) -> str | None:
    """Checks every tensor argument and the result of ``node`` against ``rule``."""
    return first_reason(op_name(node.target), node_dtypes(node), spec, rule)
