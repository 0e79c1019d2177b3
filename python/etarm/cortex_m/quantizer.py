"""CortexMQuantizer: the PT2E quantizer for Cortex-M, a8w8 (int8 activations and weights) by default.

    quantizer = CortexMQuantizer().set_global(get_symmetric_quantization_config())
    quantizer = CortexMQuantizer().set_global(get_symmetric_a16w8_quantization_config())  # int16 activations
    quantizer = CortexMQuantizer().set_global(get_symmetric_a8w4_quantization_config())  # int4 weights

The annotation rules are the shared ones (etarm/quantization), for TOSA-1.0+INT+int16. Ops with CMSIS-NN s16
kernels run a16w8 models as cortex_m ops; the others stay portable (docs/cortex_m.md lists which). With int4
weights (a8w4), only the ops CMSIS-NN has s4 kernels for keep them (1-D and 2-D convolutions with groups 1, depthwise
ones, linear layers): the weights of every other convolution are quantized to int8, which their kernels (or the portable
ones) take, instead of losing precision for nothing.
"""

from __future__ import annotations

import dataclasses

import torch

from etarm.cortex_m.compile_spec import CortexMCompileSpec
from etarm.cortex_m.int4 import depthwise_s4_exact, is_int4_range
from etarm.errors import EtarmError
from etarm.quantization.annotate_shared import annotate_shared
from etarm.quantization.annotate_weighted import CONVOLUTIONS, LINEAR, TRANSPOSED_CONVOLUTIONS
from etarm.quantization.quantization_config import QuantizationConfig, get_symmetric_quantization_config
from etarm.quantization.quantizer import AnnotatingQuantizer


class CortexMQuantizer(AnnotatingQuantizer):
    def __init__(self, compile_spec: CortexMCompileSpec | None = None):
        compile_spec = compile_spec if compile_spec is not None else CortexMCompileSpec()
        if not isinstance(compile_spec, CortexMCompileSpec):
            raise EtarmError(f"CortexMQuantizer needs a CortexMCompileSpec, not {type(compile_spec).__name__}")
        self.compile_spec = compile_spec
        super().__init__(compile_spec.tosa_spec, compile_spec.pipeline())
        # CMSIS-NN's average pool does not rescale: its output keeps the input's parameters (an average stays within
        # its inputs' range), as for a max pool.
        self.annotators = {
            **self.annotators,
            "aten.avg_pool1d.default": annotate_shared,
            "aten.avg_pool2d.default": annotate_shared,
        }
        self.annotators.update(
            {name: _int8_weights_without_s4_kernel(self.annotators[name]) for name in self._weighted_ops()}
        )
        self.set_global(get_symmetric_quantization_config())

    def _weighted_ops(self) -> list[str]:
        return [name for name in (*CONVOLUTIONS, *TRANSPOSED_CONVOLUTIONS, *LINEAR) if name in self.annotators]


def has_s4_kernel(node: torch.fx.Node) -> bool:
    """Whether a convolution or linear node of the graph being annotated becomes a cortex_m op with an s4 kernel: a
    linear, or a 1-D or 2-D convolution (not transposed) with groups 1 or groups == input channels (depthwise) that
    CMSIS-NN's s4 depthwise computes exactly (int4.depthwise_s4_exact)."""
    if node.target == torch.ops.aten.linear.default:
        return True
    weight = node.args[1].meta.get("val") if isinstance(node.args[1], torch.fx.Node) else None
    x = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    # 1-D convolutions run as images of height 1 (passes/sequences_as_images.py) on the same kernels.
    if weight is None or x is None or weight.dim() not in (3, 4):
        return False
    if node.target == torch.ops.aten.convolution.default:
        if node.args[6]:
            return False
        dilation, groups = node.args[5], node.args[8]
    elif node.target in (
        torch.ops.aten.conv1d.default,
        torch.ops.aten.conv1d.padding,
        torch.ops.aten.conv2d.default,
        torch.ops.aten.conv2d.padding,
    ):
        dilation = node.args[5] if len(node.args) > 5 else node.kwargs.get("dilation", (1, 1))
        groups = node.args[6] if len(node.args) > 6 else node.kwargs.get("groups", 1)
    else:
        return False
    in_channels = int(x.shape[1])
    if groups == 1:
        return True
    dilation = [dilation] * (weight.dim() - 2) if isinstance(dilation, int) else list(dilation)
    dilation = [1] * (4 - weight.dim()) + dilation  # a sequence's (1, d)
    return groups == in_channels and depthwise_s4_exact(
        in_channels, int(weight.shape[0]) // in_channels, int(x.shape[0]), dilation
    )


def _int8_weights_without_s4_kernel(annotator):
    """``annotator`` with int4-range weights widened to int8 for ops that have no s4 kernel."""

    def annotate(node: torch.fx.Node, config: QuantizationConfig, config_for) -> bool:
        weight = config.weight
        if weight is None or not is_int4_range(weight.quant_min, weight.quant_max) or has_s4_kernel(node):
            return annotator(node, config, config_for)
        per_channel = weight.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine)
        widened = dataclasses.replace(
            config, weight=get_symmetric_quantization_config(per_channel, config.is_qat).weight
        )

        # An activation fuses only under the op's own config: the one it resolves to is now the widened one.
        def lookup(other: torch.fx.Node) -> QuantizationConfig | None:
            found = config_for(other)
            return widened if found == config else found

        return annotator(node, widened, lookup)

    return annotate
