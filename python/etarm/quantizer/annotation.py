"""Shared vocabulary of the annotators: reading and writing PT2E annotations.

Each ``annotate_<kind>.py`` module maps the ATen ops (as named by
``etarm.operators.registry.op_name``) it handles to a function
``annotate(node, config, config_for) -> bool`` (True if it annotated ``node``) and
exports them as ``ANNOTATORS``; the quantizer walks the graph in order and calls
the annotator of each node's op. ``config_for`` looks up another node's config
(fusing an activation needs both sides to agree).
"""

from __future__ import annotations

from typing import Callable

import torch
from torchao.quantization.pt2e.quantizer import (
    QuantizationAnnotation,
    QuantizationSpecBase,
    SharedQuantizationSpec,
)
from torchao.quantization.pt2e.quantizer.quantizer import Q_ANNOTATION_KEY

from etarm.quantizer.quantization_config import QuantizationConfig

ConfigLookup = Callable[[torch.fx.Node], "QuantizationConfig | None"]
Annotator = Callable[[torch.fx.Node, QuantizationConfig, ConfigLookup], bool]


def is_float_tensor(node) -> bool:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point


def is_annotated(node: torch.fx.Node) -> bool:
    annotation = node.meta.get(Q_ANNOTATION_KEY)
    return annotation is not None and annotation._annotated


def annotation_of(node: torch.fx.Node) -> QuantizationAnnotation:
    annotation = node.meta.get(Q_ANNOTATION_KEY)
    if annotation is None:
        annotation = QuantizationAnnotation()
        node.meta[Q_ANNOTATION_KEY] = annotation
    return annotation


def annotate(
    node: torch.fx.Node,
    inputs: dict[torch.fx.Node, QuantizationSpecBase | None],
    output: QuantizationSpecBase | None,
) -> None:
    """Records how ``node``'s input edges and output are quantized, and marks it done."""
    annotation = annotation_of(node)
    for input_node, spec in inputs.items():
        if spec is not None:
            annotation.input_qspec_map[input_node] = spec
    if output is not None:
        annotation.output_qspec = output
    annotation._annotated = True


def _root_dtype(spec, depth: int = 0):
    """The dtype a (possibly shared) spec resolves to, or None if unknown."""
    if isinstance(spec, SharedQuantizationSpec) and depth < 32:
        edge_or_node = spec.edge_or_node
        if isinstance(edge_or_node, tuple):
            producer, consumer = edge_or_node
            annotation = consumer.meta.get(Q_ANNOTATION_KEY)
            spec = annotation.input_qspec_map.get(producer) if annotation else None
        else:
            annotation = edge_or_node.meta.get(Q_ANNOTATION_KEY)
            spec = annotation.output_qspec if annotation else None
        return _root_dtype(spec, depth + 1)
    return getattr(spec, "dtype", None)


def input_spec(input_node: torch.fx.Node, wanted: QuantizationSpecBase | None) -> QuantizationSpecBase | None:
    """The spec for an input edge: the producer's own output quantization when it has one
    of the wanted type (so no requantize appears between them), else ``wanted``.

    Fixed-range outputs (sigmoid) and shared ones (reshape) would otherwise meet a
    differently-specified input edge and get a second quantize/dequantize pair.
    """
    if wanted is None or not isinstance(input_node, torch.fx.Node):
        return wanted
    annotation = input_node.meta.get(Q_ANNOTATION_KEY)
    produced = annotation.output_qspec if annotation is not None else None
    if produced is not None and _root_dtype(produced) == getattr(wanted, "dtype", None):
        return SharedQuantizationSpec(input_node)
    return wanted


def float_inputs(node: torch.fx.Node) -> list[torch.fx.Node]:
    """Tensor operands (lists such as cat's included) that carry float values."""
    found = []
    for arg in node.args:
        items = arg if isinstance(arg, (list, tuple)) else [arg]
        for item in items:
            if is_float_tensor(item) and item not in found:
                found.append(item)
    return found


def single_user(node: torch.fx.Node) -> torch.fx.Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None
