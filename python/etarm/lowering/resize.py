"""Maps torch's 2-D upsampling onto TOSA RESIZE, exactly or not at all.

RESIZE reads output row ``o`` at source ``(o * d + offset) / n`` (integers n, d, offset;
``border`` only fixes the output size); BILINEAR blends the two nearest rows, NEAREST
takes the lower one unless the fraction is >= 1/2, both clamping at the edges as torch
does. torch's source coordinate is an affine function of ``o`` with a rational slope,
so it maps onto these integers; nearest's index maps are also checked against torch's
float32 arithmetic, so a resize whose rounding would differ stays on CPU.

Quantized (INT profile): NEAREST moves integers unchanged (input and output share
parameters). Integer BILINEAR weighs the four neighbours by integers summing to
``n_y * n_x`` (the scale numerators) into int32 (int48 for int16 inputs); one RESCALE
divides that back out (``lower_quantized_bilinear``).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import torch
import tosa_serializer as ts

from etarm.lowering import integer_sums, spatial
from etarm.lowering.quantized import input_qparams, is_int_spec, is_quantized, output_qparams, rescale
from etarm.lowering.registry import NodeVisitor
from etarm.tosa_ir.graph import TosaGraph, TosaTensor

MAX_SCALE_NUMERATOR = 1 << 11
MAX_IMAGE_SIZE = 16384


@dataclasses.dataclass(frozen=True)
class AxisResize:
    numerator: int  # n: source step is d / n
    denominator: int  # d
    offset: int
    border: int


def _fraction(value: float) -> Fraction | None:
    """A scale factor as a small exact fraction (None if it is not one)."""
    fraction = Fraction(value).limit_denominator(1024)
    return fraction if fraction > 0 and abs(float(fraction) - value) <= 1e-12 * abs(value) else None


def source_step(in_size: int, out_size: int, scale_factor: float | None, align_corners: bool) -> Fraction | None:
    """torch's input/output step (area_pixel_compute_scale), exactly; None if irrational-ish."""
    if align_corners:
        return Fraction(in_size - 1, out_size - 1) if out_size > 1 else Fraction(0)
    if scale_factor is not None and scale_factor > 0:
        factor = _fraction(scale_factor)
        return None if factor is None else 1 / factor
    return Fraction(in_size, out_size)


def axis_resize(in_size: int, out_size: int, step: Fraction, offset: Fraction) -> AxisResize:
    """RESIZE integers for source(o) = o * step + offset (torch's coordinate before rounding)."""
    # source = (o * d + off) / n: scale everything by the common denominator.
    if step == 0:  # align_corners with one input or output row: every output reads row 0
        n, d, off = out_size, 1, 0  # steps of 1/out_size stay within row 0
    else:
        n = math.lcm(step.denominator, offset.denominator)
        d, off = int(step * n), int(offset * n)
        g = math.gcd(n, d, off)
        n, d, off = n // g, d // g, off // g
    border = (out_size - 1) * d - (in_size - 1) * n + off
    return AxisResize(n, d, off, border)


def axis_reason(in_size: int, out_size: int, axis: AxisResize) -> str | None:
    n, d = axis.numerator, axis.denominator
    if max(in_size, out_size) >= MAX_IMAGE_SIZE:
        return f"image size {max(in_size, out_size)} exceeds TOSA RESIZE's {MAX_IMAGE_SIZE - 1}"
    if n > MAX_SCALE_NUMERATOR or d >= 16 * n:
        return f"scale {n}/{d} is outside TOSA RESIZE's range (n <= {MAX_SCALE_NUMERATOR}, downscale < 16x)"
    if not -n <= axis.offset < 16 * n or not -16 * n <= axis.border < n:
        return f"offset {axis.offset} / border {axis.border} are outside TOSA RESIZE's range for scale {n}/{d}"
    return None


def tosa_nearest_indices(in_size: int, out_size: int, axis: AxisResize) -> list[int]:
    """The rows TOSA RESIZE NEAREST reads (its integer arithmetic)."""
    indices = []
    for o in range(out_size):
        y = o * axis.denominator + axis.offset
        i, remainder = divmod(y, axis.numerator)
        chosen = i + 1 if 2 * remainder >= axis.numerator else i
        indices.append(min(max(chosen, 0), in_size - 1))
    return indices


def torch_nearest_indices(in_size: int, out_size: int, scale_factor: float | None, exact: bool = False) -> list[int]:
    """The rows torch's upsample_nearest kernel reads (nearest_idx / nearest_exact_idx: float32
    arithmetic); ``exact`` is mode="nearest-exact" (pixel centers)."""
    if not exact and out_size == in_size:
        return list(range(out_size))
    if not exact and out_size == 2 * in_size:
        return [o >> 1 for o in range(out_size)]
    if scale_factor is not None and scale_factor > 0:
        scale = np.float32(1.0 / scale_factor)
    else:
        scale = np.float32(in_size) / np.float32(out_size)
    center = np.float32(0.5 if exact else 0.0)
    return [min(int(np.floor((np.float32(o) + center) * scale)), in_size - 1) for o in range(out_size)]


@dataclasses.dataclass(frozen=True)
class ResizePlan:
    mode: object  # ts.ResizeMode
    axes: tuple[AxisResize, AxisResize]


def _sizes(node: torch.fx.Node) -> tuple[tuple[int, int], tuple[int, int]]:
    return spatial.spatial_shape(node.args[0].meta["val"], 2), spatial.spatial_shape(node.meta["val"], 2)


def _scale_factors(scale_factors) -> tuple:
    return tuple(scale_factors) if scale_factors else (None, None)


def nearest_plan(node: torch.fx.Node, scale_factors, exact: bool = False) -> ResizePlan | str:
    """The RESIZE for upsample_nearest2d (``exact``: _upsample_nearest_exact2d), or why there is none."""
    plan = []
    for in_size, out_size, factor in zip(*_sizes(node), _scale_factors(scale_factors)):
        step = source_step(in_size, out_size, factor, align_corners=False)
        if step is None:
            return f"scale_factor {factor} is not a small exact fraction"
        # torch floors o * step (nearest) or (o + 1/2) * step (nearest-exact); RESIZE rounds
        # half up, hence the extra -1/2.
        offset = (step / 2 if exact else 0) - Fraction(1, 2)
        axis = axis_resize(in_size, out_size, step, offset)
        reason = axis_reason(in_size, out_size, axis)
        if reason:
            return reason
        if tosa_nearest_indices(in_size, out_size, axis) != torch_nearest_indices(in_size, out_size, factor, exact):
            return f"nearest resize {in_size} -> {out_size} rounds differently in torch's float32 arithmetic"
        plan.append(axis)
    return ResizePlan(ts.ResizeMode.NEAREST, tuple(plan))


def bilinear_plan(node: torch.fx.Node, align_corners: bool, scale_factors) -> ResizePlan | str:
    """The RESIZE for upsample_bilinear2d, or why there is none."""
    plan = []
    for in_size, out_size, factor in zip(*_sizes(node), _scale_factors(scale_factors)):
        step = source_step(in_size, out_size, factor, align_corners)
        if step is None:
            return f"scale_factor {factor} is not a small exact fraction"
        # align_corners: source = o * step; otherwise (o + 1/2) * step - 1/2 (half-pixel centers).
        offset = Fraction(0) if align_corners else step / 2 - Fraction(1, 2)
        axis = axis_resize(in_size, out_size, step, offset)
        reason = axis_reason(in_size, out_size, axis)
        if reason:
            return reason
        plan.append(axis)
    return ResizePlan(ts.ResizeMode.BILINEAR, tuple(plan))


def resize_input_reason(node: torch.fx.Node) -> str | None:
    reason = spatial.float_input_reason(node)
    if reason:
        return reason
    if node.args[0].meta["val"].dim() != 4:
        return "input must be rank 4 (N, C, H, W)"
    return None


def _resize(graph: TosaGraph, nhwc: TosaTensor, plan: ResizePlan, out_shape, dtype) -> TosaTensor:
    """RESIZE of a channels-last image to the channels-first ``out_shape``'s size."""
    y, x = plan.axes
    scale = graph.shape_const([y.numerator, y.denominator, x.numerator, x.denominator])
    offset = graph.shape_const([y.offset, x.offset])
    border = graph.shape_const([y.border, x.border])
    shape = (nhwc.shape[0], out_shape[-2], out_shape[-1], nhwc.shape[-1])
    return graph.emit(ts.Op.RESIZE, [nhwc, scale, offset, border], shape, dtype, plan.mode)


def lower_resize(graph: TosaGraph, node: torch.fx.Node, plan: ResizePlan) -> None:
    nhwc = spatial.to_channels_last(graph, graph.value(node.args[0]), 2)
    out = graph.out(node)
    spatial.write_channels_first(graph, _resize(graph, nhwc, plan, out.shape, nhwc.dtype), out)


def weight_total(plan: ResizePlan) -> int:
    """What integer BILINEAR's four weights add up to."""
    y, x = plan.axes
    return y.numerator * x.numerator


def lower_quantized_bilinear(graph: TosaGraph, node: torch.fx.Node, plan: ResizePlan) -> None:
    """Integer BILINEAR (weights summing to ``weight_total``), then one RESCALE.

    The weighted sum of raw ``q`` carries ``weight_total`` zero points: with shared
    parameters dividing by ``weight_total`` lands on the input's grid as it is; otherwise
    they are subtracted (int32 ADD) before rescaling to the output's parameters.
    """
    source, target = input_qparams(node, 0), output_qparams(node)
    nhwc = spatial.to_channels_last(graph, graph.value(node.args[0]), 2)
    out = graph.out(node)
    weighted = _resize(graph, nhwc, plan, out.shape, integer_sums.accumulator_dtype(nhwc.dtype))
    weighted = integer_sums.int32_accumulator(graph, weighted)
    total = weight_total(plan)
    if source.same_values(target):
        result = rescale(graph, weighted, 1.0 / total, out.dtype)
    else:
        if int(source.zero_point):
            offset = graph.const([-total * int(source.zero_point)], ts.DType.INT32, shape=(1, 1, 1, 1), stem="zp_sum")
            weighted = graph.emit(ts.Op.ADD, [weighted, offset], weighted.shape, ts.DType.INT32)
        scale = float(source.scale) / (total * float(target.scale))
        result = rescale(graph, weighted, scale, out.dtype, output_zp=int(target.zero_point))
    spatial.write_channels_first(graph, result, out)


class ResizeVisitor(NodeVisitor):
    """An upsample_*2d operator: the RESIZE its ``plan`` describes, where there is one.

    Quantized NEAREST moves values unchanged; BILINEAR (``handles_qparams``) rescales."""

    profiles = frozenset({"FP", "INT"})

    def plan(self, node: torch.fx.Node) -> ResizePlan | str:
        """The node's RESIZE, or why there is none."""
        raise NotImplementedError

    def check(self, node, spec):
        reason = resize_input_reason(node)
        if reason:
            return reason
        plan = self.plan(node)
        return plan if isinstance(plan, str) else None

    def define(self, node, graph):
        lower_resize(graph, node, self.plan(node))


class BilinearResizeVisitor(ResizeVisitor):
    """Resizes whose quantized lowering interpolates integers (``lower_quantized_bilinear``)."""

    handles_qparams = True

    def check(self, node, spec):
        reason = super().check(node, spec)
        if reason is None and is_int_spec(spec):
            reason = integer_sums.int16_zero_point_reason(node) or integer_sums.sum_reason(
                node, spec, weight_total(self.plan(node)), "bilinear interpolation (weights)"
            )
        return reason

    def define(self, node, graph):
        if is_quantized(node):
            lower_quantized_bilinear(graph, node, self.plan(node))
            return
        super().define(node, graph)
