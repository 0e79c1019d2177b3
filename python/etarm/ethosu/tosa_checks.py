"""Ethos-U checks on a lowered TOSA graph, run before Vela.

Vela reports an unsupported operator by its type only ("Non-passthrough operation
(MatMul) could not run on NPU"). Checking the TOSA graph first, with the same rules
the partitioner uses (npu_rules.py), names the ATen node each offending TOSA operator
came from (``TosaOp.origin``), so the error says which op of the model to change.
"""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts

from etarm.ethosu import npu_rules
from etarm.tosa_ir.graph import TosaGraph, TosaOp

# TOSA operators Vela 5.2.0 documents as not supported on Ethos-U55/U65.
U55_UNSUPPORTED = frozenset(
    {
        "BITWISE_AND",
        "BITWISE_OR",
        "BITWISE_XOR",
        "BITWISE_NOT",
        "INTDIV",
        "LOGICAL_AND",
        "LOGICAL_RIGHT_SHIFT",
        "LOGICAL_OR",
        "LOGICAL_XOR",
        "LOGICAL_NOT",
        "SELECT",
        "EQUAL",
        "GREATER",
        "GREATER_EQUAL",
        "REDUCE_ALL",
        "REDUCE_ANY",
        "GATHER",
        "SCATTER",
    }
)
# Operators Vela 5.2.0 documents as needing constant weights on every family.
_CONSTANT_WEIGHTS = frozenset({"TRANSPOSE_CONV2D", "CONV3D"})


@dataclasses.dataclass(frozen=True)
class Violation:
    tosa_op: str
    origin: str | None  # the fx node the op was lowered from
    reason: str


def _dtype(dtype) -> str:
    return dtype.name.lower()


class _Checker:
    def __init__(self, graph: TosaGraph, family: str):
        self.graph = graph
        self.family = family

    def tensor(self, name: str):
        return self.graph.tensors[name]

    def reason(self, op: TosaOp) -> str | None:
        name = op.op.name
        tensors = [self.tensor(n) for n in (*op.inputs, *op.outputs) if n in self.graph.tensors]
        for tensor in tensors:
            if tensor.dtype != ts.DType.SHAPE:
                reason = npu_rules.rank_reason(tensor.shape, f"tensor {tensor.name}")
                if reason:
                    return reason
        u55 = npu_rules.is_u55_class(self.family)
        if u55 and name in U55_UNSUPPORTED:
            return f"TOSA {name} is not supported on Ethos-U55/U65"
        if u55:
            for tensor in tensors:
                reason = npu_rules.dtype_reason(self.family, _dtype(tensor.dtype), f"tensor {tensor.name}")
                if reason:
                    return reason
        if name in _CONSTANT_WEIGHTS and op.inputs[1] not in self.graph.constants:
            return f"TOSA {name} with non-constant weights: Vela encodes weights at compile time"
        method = getattr(self, f"check_{name.lower()}", None)
        return method(op) if method else None

    # --- per-operator checks (attr_args follow tosa_serializer's attribute arguments) ---
    def _convolution(self, op: TosaOp, depthwise: bool) -> str | None:
        pad, stride, dilation = op.attr_args[:3]
        channels = self.tensor(op.inputs[0]).shape[-1]
        return npu_rules.convolution_reason(self.family, stride, dilation, pad, depthwise, channels)

    def check_conv2d(self, op):
        return self._convolution(op, depthwise=False)

    def check_depthwise_conv2d(self, op):
        return self._convolution(op, depthwise=True)

    def check_conv3d(self, op):
        weight = self.tensor(op.inputs[1]).shape  # [O, KD, KH, KW, I]
        if npu_rules.is_u55_class(self.family) and weight[1] != 1:
            return f"3-D convolution with kernel depth {weight[1]}: Ethos-U55/U65 need kernel depth 1"
        return None

    def check_transpose_conv2d(self, op):
        stride = op.attr_args[1]
        x, weight = self.tensor(op.inputs[0]).shape, self.tensor(op.inputs[1]).shape  # NHWC, OHWI
        return npu_rules.transpose_convolution_reason(self.family, stride, x[1:3], weight[1:3])

    def check_max_pool2d(self, op):
        kernel, stride, pad = op.attr_args[:3]
        return npu_rules.pool_reason(self.family, "max", kernel, stride, pad, self.tensor(op.inputs[0]).shape[-1])

    def check_avg_pool2d(self, op):
        kernel, stride, pad = op.attr_args[:3]
        return npu_rules.pool_reason(self.family, "avg", kernel, stride, pad, self.tensor(op.inputs[0]).shape[-1])

    def check_matmul(self, op):
        a, b = self.tensor(op.inputs[0]), self.tensor(op.inputs[1])  # [N,H,C] x [N,C,W]
        return npu_rules.matmul_reason(self.family, _dtype(a.dtype), a.shape[-1], b.shape[-1])

    def check_table(self, op):
        return npu_rules.table_reason(self.family, _dtype(self.tensor(op.inputs[0]).dtype))

    def check_argmax(self, op):
        return npu_rules.argmax_reason(self.family, self.tensor(op.inputs[0]).shape, op.attr_args[0])

    def check_reduce_sum(self, op):  # after SumsInSteps (ethosu/passes/): each sum as it is
        return npu_rules.native_reduce_sum_reason(self.family, self.tensor(op.inputs[0]).shape, op.attr_args[0])

    def _reduce_extreme(self, op):
        return npu_rules.reduce_extreme_reason(self.family, _dtype(self.tensor(op.inputs[0]).dtype), op.op.name)

    check_reduce_max = check_reduce_min = _reduce_extreme

    def check_reverse(self, op):
        return npu_rules.reverse_reason(self.family, self.tensor(op.inputs[0]).rank, op.attr_args[0])

    def check_resize(self, op):
        scale = self.graph.constants.get(op.inputs[1])
        offset = self.graph.constants.get(op.inputs[2])
        if scale is None or len(scale) != 4:
            return None
        nearest = op.attr_args[0] == ts.ResizeMode.NEAREST
        x = self.tensor(op.inputs[0])
        reason = npu_rules.resize_reason(self.family, scale[0] / scale[1], scale[2] / scale[3], bilinear=not nearest)
        if reason or not nearest or not npu_rules.is_u55_class(self.family) or offset is None:
            return reason
        # measured: Vela compiles NEAREST only in the half-pixel encoding (n = 2k, d = 2, offset = 1 - k)
        for axis in (0, 1):
            n, d, off = int(scale[2 * axis]), int(scale[2 * axis + 1]), int(offset[axis])
            if x.shape[axis + 1] > 1 and (d != 2 or off != 1 - n // 2):
                return (
                    f"nearest resize encoded as scale {n}/{d}, offset {off}: Vela compiles Ethos-U55/U65 "
                    "nearest resizes only in the half-pixel encoding"
                )
        return None

    def check_transpose(self, op):
        x = self.tensor(op.inputs[0])
        return npu_rules.transpose_reason(self.family, x.shape, op.attr_args[0], _dtype(x.dtype))

    def _int32_shift(self, op):
        return npu_rules.int32_only_reason(self.family, _dtype(self.tensor(op.inputs[0]).dtype), op.op.name)

    check_arithmetic_right_shift = check_logical_left_shift = _int32_shift

    def check_cast(self, op):
        source = _dtype(self.tensor(op.inputs[0]).dtype)
        return npu_rules.narrowing_cast_reason(self.family, source, _dtype(self.tensor(op.outputs[0]).dtype))


def check_graph(graph: TosaGraph, family: str) -> list[Violation]:
    """Every operator of ``graph`` an NPU of ``family`` cannot run, with the reason."""
    checker = _Checker(graph, family)
    violations = []
    for op in graph.ops:
        reason = checker.reason(op)
        if reason:
            violations.append(Violation(op.op.name, op.origin, reason))
    return violations
