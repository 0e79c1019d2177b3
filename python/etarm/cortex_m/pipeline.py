"""The passes a model goes through for Cortex-M, in flow order (``etarm passes -t cortex-m55``).

Cortex-M has no delegate: the edge program itself is rewritten, each quantized pattern with a
CMSIS-NN kernel becoming a ``cortex_m::`` op (ops.py); everything else stays as it is and runs
on the portable kernels (float between quantize/dequantize nodes).
"""

from __future__ import annotations

from etarm.cortex_m.passes.cancel_layout_permutes import CancelLayoutPermutes
from etarm.cortex_m.passes.quantize_before_fused_activations import QuantizeBeforeFusedActivations
from etarm.cortex_m.passes.quantized_activations_as_tables import QuantizedActivationsAsTables
from etarm.cortex_m.passes.quantized_avg_pool2d_as_cmsis_nn import QuantizedAvgPool2dAsCmsisNn
from etarm.cortex_m.passes.quantized_bmm_as_cortex_m import QuantizedBmmAsCortexM
from etarm.cortex_m.passes.quantized_cats_and_views_on_integers import QuantizedCatsAndViewsOnIntegers
from etarm.cortex_m.passes.quantized_clamp_as_cortex_m import QuantizedClampAsCortexM
from etarm.cortex_m.passes.quantized_add_as_cmsis_nn import QuantizedAddAsCmsisNn
from etarm.cortex_m.passes.quantized_conv2d_as_cmsis_nn import QuantizedConv2dAsCmsisNn
from etarm.cortex_m.passes.quantized_depthwise_conv2d_as_cmsis_nn import QuantizedDepthwiseConv2dAsCmsisNn
from etarm.cortex_m.passes.quantized_grouped_conv2d_as_cmsis_nn import QuantizedGroupedConv2dAsCmsisNn
from etarm.cortex_m.passes.quantized_linear_as_cmsis_nn import QuantizedLinearAsCmsisNn
from etarm.cortex_m.passes.quantized_max_pool2d_as_cmsis_nn import QuantizedMaxPool2dAsCmsisNn
from etarm.cortex_m.passes.quantized_mean_hw_as_cortex_m import QuantizedMeanHwAsCortexM
from etarm.cortex_m.passes.quantized_minimum_maximum_as_cortex_m import QuantizedMinimumMaximumAsCortexM
from etarm.cortex_m.passes.quantized_mul_as_cmsis_nn import QuantizedMulAsCmsisNn
from etarm.cortex_m.passes.quantized_pad_as_cortex_m import QuantizedPadAsCortexM
from etarm.cortex_m.passes.quantized_scalings_as_cortex_m import QuantizedScalingsAsCortexM
from etarm.cortex_m.passes.quantized_permutes_as_cortex_m import QuantizedPermutesAsCortexM
from etarm.cortex_m.passes.quantized_softmax_as_cmsis_nn import QuantizedSoftmaxAsCmsisNn
from etarm.cortex_m.passes.quantized_transpose_conv2d_as_cmsis_nn import QuantizedTransposeConv2dAsCmsisNn
from etarm.cortex_m.passes.record_cpu_variant import CODE_PATH, RecordCpuVariant
from etarm.cortex_m.passes.record_scratch_sizes import RecordScratchSizes
from etarm.cortex_m.passes.split_attention import SplitAttention
from etarm.cortex_m.passes.sequences_as_images import SequencesAsImages
from etarm.passes.base import Pass, Pipeline
from etarm.passes.decompose_for_annotation import DecomposeForAnnotation
from etarm.passes.decompose_recurrent_layers import DecomposeRecurrentLayers


def cortex_m_passes(code_path: str = "MVE") -> list[Pass]:
    """``code_path``: CMSIS-NN's path on the CPU that runs the program (MVE: the M55/M85 of an Ethos-U image)."""
    return [
        # Before the image rewrites, which take the 2-D forms of 1-D convolutions, pools and means.
        SequencesAsImages(),
        # Before the add and mul rewrites, which take results quantized directly.
        QuantizeBeforeFusedActivations(),
        QuantizedAddAsCmsisNn(),
        QuantizedMulAsCmsisNn(),
        # After the mul rewrite, which takes the products of two quantized tensors.
        QuantizedScalingsAsCortexM(),
        QuantizedMinimumMaximumAsCortexM(),
        QuantizedSoftmaxAsCmsisNn(),
        QuantizedLinearAsCmsisNn(),
        # After the linear rewrite: the mms it leaves may be products of two activations.
        QuantizedBmmAsCortexM(),
        QuantizedConv2dAsCmsisNn(),
        QuantizedDepthwiseConv2dAsCmsisNn(),
        QuantizedGroupedConv2dAsCmsisNn(),
        QuantizedTransposeConv2dAsCmsisNn(),
        QuantizedMaxPool2dAsCmsisNn(),
        QuantizedAvgPool2dAsCmsisNn(),
        QuantizedMeanHwAsCortexM(),
        QuantizedPadAsCortexM(),
        # After every rewrite that wraps an NHWC op in permutes: a table reads an NHWC result in place.
        QuantizedActivationsAsTables(),
        # After every rewrite that fuses an activation as its clamp: the activations left alone.
        QuantizedClampAsCortexM(),
        # After the rewrites of the ops around them, which read and give integer tensors.
        QuantizedCatsAndViewsOnIntegers(),
        # After every rewrite that wraps an NHWC op in permutes.
        CancelLayoutPermutes(),
        # After CancelLayoutPermutes, which only sees aten permutes.
        QuantizedPermutesAsCortexM(),
        # After every rewrite that makes a convolution.
        RecordScratchSizes(code_path),
    ]


def cortex_m_pipeline(target: str) -> Pipeline:
    # The CPU record is the Cortex-M target's own (an Ethos-U image's CPU is its board's).
    record = RecordCpuVariant(target)  # refuses a target it does not know
    # SplitAttention is the Cortex-M target's own: an Ethos-U target keeps attention whole for its NPU.
    # The decompositions before annotation are an Ethos-U pipeline's TOSA passes: nn.LSTM / nn.GRU and the composites
    # edge lowering would split after quantization become ops the quantizer annotates one by one.
    before_annotation = [DecomposeForAnnotation(), DecomposeRecurrentLayers(), SplitAttention()]
    return Pipeline(target, [*before_annotation, *cortex_m_passes(CODE_PATH[record.target]), record])
