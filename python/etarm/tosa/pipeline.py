"""The passes a model goes through for a TOSA profile, in flow order (``etarm passes -t TOSA-1.0+INT``).

Every TOSA-emitting target (Ethos-U, ...) starts from this list and adds its own.
"""

from __future__ import annotations

from etarm.passes.additive_masks_as_where import AdditiveMasksAsWhere
from etarm.passes.base import Pass, Pipeline
from etarm.passes.cancel_layout_changes import CancelLayoutChanges
from etarm.passes.compute_small_integers_in_int32 import ComputeSmallIntegersInInt32
from etarm.passes.convert_int64_const_ops_to_int32 import ConvertInt64ConstOpsToInt32Pass
from etarm.passes.convert_int64_output_ops_to_int32 import ConvertInt64OutputOpsToInt32Pass
from etarm.passes.decompose_for_annotation import DecomposeForAnnotation
from etarm.passes.decompose_recurrent_layers import DecomposeRecurrentLayers
from etarm.passes.fold_constant_weights import FoldConstantWeights
from etarm.passes.duplicate_shared_dequantizers import DuplicateSharedDequantizersPass
from etarm.passes.fold_batch_norm_into_convolution import FoldBatchNormIntoConvolution
from etarm.passes.fold_quantize_nodes import FoldQuantizeNodes
from etarm.passes.insert_int32_casts_after_int64_placeholders import InsertInt32CastsAfterInt64PlaceholdersPass
from etarm.passes.lift_scalar_operands import LiftScalarOperands
from etarm.passes.make_kept_composite_outputs_contiguous import MakeKeptCompositeOutputsContiguous
from etarm.passes.quantize_pass_through_outputs import QuantizePassThroughOutputs
from etarm.passes.share_qparams import ShareQParams
from etarm.tosa_ir.specification import TosaSpecification


def tosa_passes(spec: TosaSpecification) -> list[Pass]:
    """The passes of ``spec``'s profiles: every profile narrows int64 (TOSA has none), INT folds Q/DQ nodes."""
    passes: list[Pass] = [
        FoldConstantWeights(),
        DecomposeForAnnotation(),
        DecomposeRecurrentLayers(),
        AdditiveMasksAsWhere(),
        LiftScalarOperands(),
        MakeKeptCompositeOutputsContiguous(),
    ]
    # TOSA has no int64: every profile narrows int64 ids, positions and indices (quantized programs
    # too, so embeddings and arange are delegated; a cast back keeps int64 where a consumer needs it).
    passes += [
        ConvertInt64ConstOpsToInt32Pass(spec),
        ConvertInt64OutputOpsToInt32Pass(spec),
        InsertInt32CastsAfterInt64PlaceholdersPass(spec),
    ]
    if spec.supports_int():  # the int8/int16 <-> int32 casts it adds are INT-profile CASTs
        passes += [ComputeSmallIntegersInInt32(), DuplicateSharedDequantizersPass(), QuantizePassThroughOutputs()]
    passes.append(FoldBatchNormIntoConvolution())
    if spec.supports_int() and not spec.supports_fp():
        passes += [FoldQuantizeNodes(), ShareQParams()]
    passes.append(CancelLayoutChanges())
    return passes


def tosa_pipeline(spec: TosaSpecification) -> Pipeline:
    return Pipeline(str(spec), tosa_passes(spec))
