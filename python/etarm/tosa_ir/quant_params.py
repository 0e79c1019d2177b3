"""Quantization parameters of the integer tensors in an INT-profile partition.

PT2E leaves a quantized model as float ops between ``quantize_*`` / ``dequantize_*``
nodes. For TOSA INT the lowering folds those nodes away (passes/fold_quantize_nodes.py)
and records, on each op's ``node.meta``, the parameters of the integer tensors it
now reads and writes:

- ``node.meta[INPUT_QPARAMS]``: ``{argument index: QuantParams}``
- ``node.meta[OUTPUT_QPARAMS]``: ``{output index: QuantParams}`` (placeholders too:
  the parameters of the integer value they carry)

This module is the vocabulary shared by the partitioner, the passes, the visitors
and the report: recognising Q/DQ nodes and reading their parameters.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np
import torch

from etarm.op_names import op_name

INPUT_QPARAMS = "input_qparams"
OUTPUT_QPARAMS = "output_qparams"

_QUANTIZE_PER_TENSOR = "quantized_decomposed.quantize_per_tensor.default"
_DEQUANTIZE_PER_TENSOR = "quantized_decomposed.dequantize_per_tensor.default"
_QUANTIZE_PER_CHANNEL = "quantized_decomposed.quantize_per_channel.default"
_DEQUANTIZE_PER_CHANNEL = "quantized_decomposed.dequantize_per_channel.default"
QUANTIZE_OPS = frozenset({_QUANTIZE_PER_TENSOR, _QUANTIZE_PER_CHANNEL})
DEQUANTIZE_OPS = frozenset({_DEQUANTIZE_PER_TENSOR, _DEQUANTIZE_PER_CHANNEL})
# Overloads whose scale is computed at run time (dynamic quantization): TOSA has no equivalent.
DYNAMIC_QDQ_OPS = frozenset(
    {
        "quantized_decomposed.quantize_per_tensor.tensor",
        "quantized_decomposed.quantize_per_tensor.tensor2",
        "quantized_decomposed.dequantize_per_tensor.tensor",
        "quantized_decomposed.dequantize_per_tensor.tensor2",
        "quantized_decomposed.choose_qparams.tensor",
    }
)

# Activations the quantizer fuses into the op before them (no Q/DQ between the two):
# the op writes its integer result directly with the activation's output parameters.
FUSED_ACTIVATIONS = frozenset(
    {
        "aten.relu.default",
        "aten.relu_.default",
        "aten.relu6.default",
        "aten.hardtanh.default",
        "aten.hardtanh_.default",
        "aten.clamp.default",
        "aten.clamp_.default",
        "aten.clamp_min.default",
        "aten.clamp_max.default",
    }
)


def is_fused_activation(node) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and op_name(node.target) in FUSED_ACTIVATIONS


@dataclasses.dataclass(frozen=True)
class QuantParams:
    """``real = (q - zero_point) * scale``, q in [qmin, qmax] of ``dtype``.

    Per-channel parameters (weights, biases) hold one scale and zero point per
    index of dimension ``axis``; per-tensor ones have ``axis`` None.
    """

    scale: float | tuple[float, ...]
    zero_point: int | tuple[int, ...]
    qmin: int
    qmax: int
    dtype: torch.dtype
    axis: int | None = None

    @property
    def per_channel(self) -> bool:
        return self.axis is not None

    @property
    def scales(self) -> np.ndarray:
        return np.atleast_1d(np.asarray(self.scale, dtype=np.float64))

    @property
    def zero_points(self) -> np.ndarray:
        return np.atleast_1d(np.asarray(self.zero_point, dtype=np.int64))

    def same_values(self, other: "QuantParams") -> bool:
        """Equal parameters: integer values carry over unchanged between the two."""
        return (
            self.dtype == other.dtype
            and self.qmin == other.qmin
            and self.qmax == other.qmax
            and self.axis == other.axis
            and np.array_equal(self.scales.astype(np.float32), other.scales.astype(np.float32))
            and np.array_equal(self.zero_points, other.zero_points)
        )

    def quantize(self, values: torch.Tensor) -> torch.Tensor:
        """As the quantize node PT2E inserted would (same op, so bit-identical)."""
        _ensure_qdq_ops()
        if self.per_channel:
            return torch.ops.quantized_decomposed.quantize_per_channel(
                values.float(), torch.tensor(self.scales), torch.tensor(self.zero_points), self.axis,
                self.qmin, self.qmax, self.dtype,
            )
        return torch.ops.quantized_decomposed.quantize_per_tensor(
            values.float(), float(self.scale), int(self.zero_point), self.qmin, self.qmax, self.dtype
        )

    def dequantize(self, values: torch.Tensor) -> torch.Tensor:
        _ensure_qdq_ops()
        if self.per_channel:
            return torch.ops.quantized_decomposed.dequantize_per_channel(
                values, torch.tensor(self.scales), torch.tensor(self.zero_points), self.axis,
                self.qmin, self.qmax, self.dtype,
            )
        return torch.ops.quantized_decomposed.dequantize_per_tensor(
            values, float(self.scale), int(self.zero_point), self.qmin, self.qmax, self.dtype
        )

    @classmethod
    def from_report(cls, entry: dict) -> "QuantParams":
        """The parameters a compile report shows for a partition input or output (``report``)."""
        return cls(entry["scale"], entry["zero_point"], entry["qmin"], entry["qmax"], getattr(torch, entry["qdtype"]))

    def report(self) -> dict:
        """The JSON form the compile report shows for a partition input or output."""
        scale = [float(s) for s in self.scales] if self.per_channel else float(self.scale)
        zero_point = [int(z) for z in self.zero_points] if self.per_channel else int(self.zero_point)
        return {
            "scale": scale,
            "zero_point": zero_point,
            "qmin": self.qmin,
            "qmax": self.qmax,
            "qdtype": str(self.dtype).replace("torch.", ""),
        }


def _ensure_qdq_ops() -> None:
    # The quantized_decomposed ops are registered by torchao's PT2E package.
    if not hasattr(torch.ops.quantized_decomposed, "quantize_per_tensor"):
        import torchao.quantization.pt2e  # noqa: F401


def is_quantize(node) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and op_name(node.target) in QUANTIZE_OPS


def is_dequantize(node) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and op_name(node.target) in DEQUANTIZE_OPS


def is_qdq(node) -> bool:
    return is_quantize(node) or is_dequantize(node)


def is_dynamic_qdq(node) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and op_name(node.target) in DYNAMIC_QDQ_OPS


# Reads a per-channel scale/zero-point tensor argument (a constant placeholder or get_attr).
ConstantReader = Callable[[torch.fx.Node], "torch.Tensor | None"]


def qdq_dtype(node: torch.fx.Node) -> torch.dtype:
    """The integer dtype of a Q/DQ node (its last argument)."""
    return node.args[-1] if len(node.args) > 0 and isinstance(node.args[-1], torch.dtype) else node.kwargs["dtype"]


def qparams_of(node: torch.fx.Node, read_constant: ConstantReader | None = None) -> QuantParams:
    """The parameters a quantize/dequantize node applies.

    Per-channel nodes take their scales and zero points as tensor arguments, which
    ``read_constant`` turns into values (required for those nodes).
    """
    name = op_name(node.target)
    if name in (_QUANTIZE_PER_TENSOR, _DEQUANTIZE_PER_TENSOR):
        _, scale, zero_point, qmin, qmax, dtype = node.args[:6]
        return QuantParams(float(scale), int(zero_point), int(qmin), int(qmax), dtype)
    if name in (_QUANTIZE_PER_CHANNEL, _DEQUANTIZE_PER_CHANNEL):
        _, scales, zero_points, axis, qmin, qmax, dtype = node.args[:7]
        scale_values = _read(scales, read_constant)
        zp_values = _read(zero_points, read_constant)
        rank = len(node.args[0].meta["val"].shape) if "val" in node.args[0].meta else None
        if rank is not None and axis < 0:
            axis += rank
        return QuantParams(
            tuple(float(s) for s in scale_values.reshape(-1).tolist()),
            tuple(int(z) for z in zp_values.reshape(-1).tolist()),
            int(qmin),
            int(qmax),
            dtype,
            int(axis),
        )
    raise ValueError(f"{node.name} ({name}) is not a quantize/dequantize node")


def _read(arg, read_constant: ConstantReader | None) -> torch.Tensor:
    if isinstance(arg, torch.Tensor):
        return arg
    if isinstance(arg, torch.fx.Node) and read_constant is not None:
        value = read_constant(arg)
        if value is not None:
            return value
    raise ValueError(f"cannot read the per-channel quantization parameter {arg}")


def input_qparams(node: torch.fx.Node, index: int = 0) -> QuantParams:
    """Parameters of the integer tensor ``node`` reads as argument ``index`` (after folding)."""
    try:
        return node.meta[INPUT_QPARAMS][index]
    except KeyError:
        raise KeyError(f"{node.name} has no quantization parameters for argument {index}") from None


def output_qparams(node: torch.fx.Node, index: int = 0) -> QuantParams:
    """Parameters of the integer tensor ``node`` produces (after folding)."""
    try:
        return node.meta[OUTPUT_QPARAMS][index]
    except KeyError:
        raise KeyError(f"{node.name} has no output quantization parameters") from None


def has_input_qparams(node: torch.fx.Node, index: int = 0) -> bool:
    return index in node.meta.get(INPUT_QPARAMS, {})


def has_output_qparams(node: torch.fx.Node, index: int = 0) -> bool:
    return index in node.meta.get(OUTPUT_QPARAMS, {})


def is_quantized(node: torch.fx.Node) -> bool:
    """True once the fold pass gave ``node`` integer inputs or outputs (INT profile)."""
    return bool(node.meta.get(INPUT_QPARAMS)) or bool(node.meta.get(OUTPUT_QPARAMS))


def set_input_qparams(node: torch.fx.Node, index: int, qparams: QuantParams) -> None:
    node.meta.setdefault(INPUT_QPARAMS, {})[index] = qparams


def set_output_qparams(node: torch.fx.Node, index: int, qparams: QuantParams) -> None:
    node.meta.setdefault(OUTPUT_QPARAMS, {})[index] = qparams


def flat_args(node: torch.fx.Node) -> Sequence:
    """(argument index, fx node) for every node operand, lists (cat, stack) included.

    Operands inside a list argument are numbered by their argument's index; the list
    position is the second element of the key, as ``(index, position)``.
    """
    found = []
    for i, arg in enumerate(node.args):
        if isinstance(arg, torch.fx.Node):
            found.append((i, arg))
        elif isinstance(arg, (list, tuple)):
            for j, item in enumerate(arg):
                if isinstance(item, torch.fx.Node):
                    found.append(((i, j), item))
    return found
