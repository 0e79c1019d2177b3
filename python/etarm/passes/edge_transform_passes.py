"""The transform passes compile_model hands ``to_edge_transform_and_lower`` for a target.

They run on the edge graph before partitioning. For the FP profile: TOSA 1.0 has no int64,
so int64 constants, casts, index outputs and graph inputs are narrowed to int32 first. For
the INT profile: dequantize nodes that edge decompositions made shared get one copy per
consumer, so each consumer can join a partition on its own.
"""

from __future__ import annotations

from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
from etarm.passes.convert_int64_output_ops_to_int32 import ConvertInt64OutputOpsToInt32Pass
from etarm.passes.duplicate_shared_dequantizers import DuplicateSharedDequantizersPass
from etarm.passes.insert_int32_casts_after_int64_placeholders import InsertInt32CastsAfterInt64PlaceholdersPass
from etarm.tosa.specification import TosaSpecification


def default_transform_passes(spec: TosaSpecification | None) -> list | None:
    """The passes for ``spec``; None when none apply (no TOSA specification)."""
    if spec is None:
        return None
    passes = []
    if spec.supports_fp():
        passes += [
            ConvertInt64ConstOpsToInt32Pass(spec),
            ConvertInt64OutputOpsToInt32Pass(spec),
            InsertInt32CastsAfterInt64PlaceholdersPass(spec),
        ]
    if spec.supports_int():
        passes.append(DuplicateSharedDequantizersPass())
    return passes or None
