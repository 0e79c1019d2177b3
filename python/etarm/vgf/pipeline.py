"""The passes a model goes through for VGF, in flow order (``etarm passes -t vgf``).

The TOSA pipeline of the spec's profile: model-converter takes etarm's TOSA 1.0 graphs
as they are, so VGF adds no passes of its own.
"""

from __future__ import annotations

from etarm.passes.base import Pipeline
from etarm.tosa.pipeline import tosa_passes
from etarm.tosa_ir.specification import TosaSpecification


def vgf_pipeline(target: str, tosa_spec: TosaSpecification) -> Pipeline:
    return Pipeline(target, tosa_passes(tosa_spec))
