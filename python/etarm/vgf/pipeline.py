"""The passes a model goes through for VGF, in flow order (``etarm passes -t vgf``).

The TOSA pipeline of the spec's profile, then the VGF backend's rewrites of the lowered graph:
the model converter takes etarm's TOSA 1.0 graphs as they are, but a Vulkan device cannot
hold what some of them describe (rank-0 tensors, vgf/passes/), and whole-image pools are
smaller as sums (no unit weights in the .vgf).
"""

from __future__ import annotations

from etarm.passes.base import Pipeline
from etarm.passes.global_pools_as_sums import GlobalPoolsAsSums
from etarm.tosa.pipeline import tosa_passes
from etarm.tosa_ir.specification import TosaSpecification
from etarm.vgf.passes.rank_zero_as_shape_one import RankZeroAsShapeOne


def vgf_pipeline(target: str, tosa_spec: TosaSpecification) -> Pipeline:
    return Pipeline(target, [*tosa_passes(tosa_spec), GlobalPoolsAsSums(), RankZeroAsShapeOne()])
