"""Data movement: ops whose output values are (a subset of) their input values.

Reshape, permute, slice, concatenation, max pooling and the like keep the input's
quantization parameters (SharedQuantizationSpec), so their integer lowering moves
values without rescaling. Bilinear upsampling shares them too: its outputs are
weighted averages of neighbouring inputs, so they stay within the input's range
(its lowering divides the interpolation weights back out). argmax/argmin quantize
only their input: their results are integer indices. Multi-input ops (cat, stack, maximum,
where) make all inputs share the first input's parameters; multi-output ops (split, chunk,
unbind) share them with every result. Comparisons share their inputs' parameters too, so
the integers compare like the real values; their bool results (and isnan's, isinf's) carry
none.
"""

from __future__ import annotations

import operator

import torch
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from etarm.quantization.annotation import ConfigLookup, annotate, float_inputs, input_spec, is_float_tensor
from etarm.quantization.quantization_config import QuantizationConfig

SINGLE_INPUT = (
    "aten.view.default",
    "aten.reshape.default",
    "aten._unsafe_view.default",
    "aten.permute.default",
    "aten.transpose.int",
    "aten.t.default",
    "aten.squeeze.default",
    "aten.squeeze.dim",
    "aten.squeeze.dims",
    "aten.unsqueeze.default",
    "aten.flatten.using_ints",
    "aten.unflatten.int",
    "aten.slice.Tensor",
    "aten.select.int",
    "aten.narrow.default",
    "aten.expand.default",
    "aten.repeat.default",
    "aten.tile.default",
    "aten.flip.default",
    "aten.roll.default",
    "aten.movedim.int",
    "aten.swapaxes.default",
    "aten.pixel_shuffle.default",
    "aten.pixel_unshuffle.default",
    "aten.clone.default",
    "aten.contiguous.default",
    "aten.alias.default",
    "aten.detach.default",
    "aten.dropout.default",
    "aten.constant_pad_nd.default",
    "aten.pad.default",
    "aten.index_select.default",
    "aten.embedding.default",  # a gather of weight rows: the weight's parameters carry over
    "aten.gather.default",
    "aten.index.Tensor",
    "aten.max_pool1d.default",
    "aten.max_pool2d.default",
    "aten.max_pool3d.default",
    "aten.adaptive_max_pool2d.default",
    "aten.upsample_nearest1d.vec",
    "aten.upsample_nearest2d.vec",
    "aten.upsample_nearest2d.default",
    "aten._upsample_nearest_exact2d.vec",
    "aten.upsample_bilinear2d.vec",
    "aten.amax.default",
    "aten.amin.default",
    "aten.max.dim",
    "aten.min.dim",
    "aten.max.default",
    "aten.min.default",
    "aten.argmax.default",
    "aten.argmin.default",
    "aten.tril.default",  # the zeroed values are the input's zero point
    "aten.triu.default",
)
MULTI_INPUT = (
    "aten.cat.default",
    "aten.concat.default",
    "aten.concatenate.default",
    "aten.stack.default",
    "aten.hstack.default",
    "aten.vstack.default",
    "aten.maximum.default",
    "aten.minimum.default",
    "aten.where.self",  # the bool condition is not a float input: only the branches share
    # Writing one tensor's values into another: source and destination share parameters.
    "aten.slice_scatter.default",
    "aten.select_scatter.default",
    "aten.index_put.default",
    "aten.index_copy.default",
    "aten.scatter.src",
)
BOOL_TESTS = (
    *(f"aten.{op}.{overload}" for op in ("eq", "ne", "gt", "ge", "lt", "le") for overload in ("Tensor", "Scalar")),
    "aten.isnan.default",
    "aten.isinf.default",
)
MULTI_OUTPUT = (
    "aten.split.Tensor",
    "aten.split_with_sizes.default",
    "aten.chunk.default",
    "aten.unbind.int",
    "aten.tensor_split.sections",
)


def annotate_shared(node: torch.fx.Node, config: QuantizationConfig, config_for: ConfigLookup) -> bool:
    inputs = float_inputs(node)
    if not inputs or config.input_activation is None:
        return False
    first = inputs[0]
    specs = {first: input_spec(first, config.input_activation)}
    for other in inputs[1:]:
        specs[other] = SharedQuantizationSpec((first, node))
    shared = SharedQuantizationSpec((first, node))
    if isinstance(node.meta.get("val"), (list, tuple)):
        # Tuple results (split, max.dim): their getitem nodes carry the tensors.
        annotate(node, specs, None)
        for user in node.users:
            if user.op == "call_function" and user.target is operator.getitem and is_float_tensor(user):
                annotate(user, {}, shared)
        return True
    annotate(node, specs, shared if is_float_tensor(node) else None)
    return True


ANNOTATORS = {name: annotate_shared for name in SINGLE_INPUT + MULTI_INPUT + MULTI_OUTPUT + BOOL_TESTS}
