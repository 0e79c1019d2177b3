"""The passes a model goes through for an Ethos-U NPU, in flow order (``etarm passes -t ethos-u55-128``).

The TOSA INT pipeline, with the composites split before annotation where the quantizer
asks for it, then the NPU family's rewrites of the lowered TOSA graph (ethosu/passes/),
each bit-exact, before the TOSA checks and Vela. What the NPU rejects then runs on the
Cortex-M beside it: the Cortex-M target's rewrites turn its quantized patterns into
``cortex_m::`` (CMSIS-NN) kernels instead of float portable ones (``cpu_fallback``).
"""

from __future__ import annotations

from etarm.ethosu.npu_rules import is_u55_class
from etarm.ethosu.passes.extremum_casts_as_rescales import ExtremumCastsAsRescales
from etarm.ethosu.passes.floor_shifts_as_rounded_shifts import FloorShiftsAsRoundedShifts
from etarm.ethosu.passes.global_pools_as_sums import GlobalPoolsAsSums
from etarm.ethosu.passes.minima_as_complemented_maxima import MinimaAsComplementedMaxima
from etarm.ethosu.passes.narrow_transposes import NarrowTransposes
from etarm.ethosu.passes.narrowings_doubled_before_rescales import NarrowingsDoubledBeforeRescales
from etarm.ethosu.passes.nearest_resizes_as_half_pixel import NearestResizesAsHalfPixel
from etarm.ethosu.passes.pad_strided_convolutions import PadStridedConvolutions
from etarm.ethosu.passes.pad_strided_max_pools import PadStridedMaxPools
from etarm.ethosu.passes.pointwise_rows_as_batch import PointwiseRowsAsBatch
from etarm.ethosu.passes.reductions_without_transposes import ReductionsWithoutTransposes
from etarm.ethosu.passes.rescales_before_slices_and_tiles import RescalesBeforeSlicesAndTiles
from etarm.ethosu.passes.slices_at_lowest_rank import SlicesAtLowestRank
from etarm.ethosu.passes.subsample_strided_convolutions import SubsampleStridedConvolutions
from etarm.ethosu.passes.sums_in_steps import SumsInSteps
from etarm.ethosu.passes.transposes_at_lowest_rank import TransposesAtLowestRank
from etarm.ethosu.passes.transposes_with_unit_axes_in_place import TransposesWithUnitAxesInPlace
from etarm.ethosu.passes.trivial_transposes_as_reshapes import TrivialTransposesAsReshapes
from etarm.cortex_m.pipeline import cortex_m_passes
from etarm.passes.base import Pass, Pipeline, on_cpu_part
from etarm.passes.divisions_as_reciprocal_products import DivisionsAsReciprocalProducts
from etarm.passes.glus_as_sigmoid_products import GlusAsSigmoidProducts
from etarm.passes.split_composites import SplitComposites
from etarm.tosa.pipeline import tosa_passes
from etarm.tosa_ir.specification import TosaSpecification


def npu_rewrites(family: str) -> list[Pass]:
    """U55/U65 rewrites make the NPU run what it otherwise could not (strides above 3,
    2x upsampling, long sums, int32 narrowing) or compute what TOSA says where Vela 5.2.0 does
    not (flooring shifts, reshaped min-reductions, widened slices; on U85 sliced heads and int16
    window sums); the others only save cycles (linears' rows as the batch: both families)."""
    if is_u55_class(family):
        return [
            ReductionsWithoutTransposes(family),
            GlobalPoolsAsSums(family),
            NarrowTransposes(),
            TrivialTransposesAsReshapes(),
            TransposesWithUnitAxesInPlace(),
            SumsInSteps(),
            PadStridedConvolutions(),
            SubsampleStridedConvolutions(),
            PadStridedMaxPools(),
            NearestResizesAsHalfPixel(),
            ExtremumCastsAsRescales(),
            FloorShiftsAsRoundedShifts(),
            MinimaAsComplementedMaxima(),
            RescalesBeforeSlicesAndTiles(),
            PointwiseRowsAsBatch(),
        ]
    return [
        ReductionsWithoutTransposes(family),
        GlobalPoolsAsSums(family),
        NarrowTransposes(),
        TrivialTransposesAsReshapes(),
        TransposesWithUnitAxesInPlace(),
        TransposesAtLowestRank(),
        SlicesAtLowestRank(),
        PointwiseRowsAsBatch(),
        PadStridedMaxPools(),
        NarrowingsDoubledBeforeRescales(),
    ]


def before_annotation(family: str) -> list[Pass]:
    """U55/U65 have no INTDIV nor GATHER: divisions by tensors become products with reciprocals,
    glus products with sigmoids."""
    if is_u55_class(family):
        return [SplitComposites(), DivisionsAsReciprocalProducts(), GlusAsSigmoidProducts()]
    return [SplitComposites()]


def ethosu_pipeline(target: str, family: str, tosa_spec: TosaSpecification, cpu_fallback: bool = True) -> Pipeline:
    cpu_part = on_cpu_part(cortex_m_passes()) if cpu_fallback else []
    return Pipeline(target, [*before_annotation(family), *tosa_passes(tosa_spec), *npu_rewrites(family), *cpu_part])
