"""Shared vocabulary of the annotators: reading and writing PT2E annotations.

Each ``annotate_<kind>.py`` module maps the ATen ops (as named by
``etarm.lowering.registry.op_name``) it handles to a function
``annotate(node, config, config_for) -> bool`` (True if it annotated ``node``) and
exports them as ``ANNOTATORS``; the quantizer walks the graph in order and calls
the annotator of each node's op. ``config_for`` looks up another node's config
(fusing an activation needs both sides to agree). ``anchor_shared_groups`` then
rewrites the finished annotation so every group of shared parameters has one anchor.
"""

from __future__ import annotations

from typing import Callable

import torch
from torchao.quantization.pt2e.quantizer import (
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    QuantizationSpecBase,
    SharedQuantizationSpec,
)
from torchao.quantization.pt2e.quantizer.quantizer import Q_ANNOTATION_KEY

from etarm.quantization.quantization_config import QuantizationConfig

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


# --- one anchor per sharing group ----------------------------------------------------------
# PT2E's prepare step groups edges and outputs that share an observer: explicitly through
# SharedQuantizationSpec, implicitly where a producer's output and its consumers' input
# edges have equal specs (attributes below). It resolves a shared spec by following its
# target to the root of a union-find tree, and that tree's root can end up being a shared
# key whose own target sits below it (overlapping groups such as maximum(a, b) next to
# minimum(b, a)): the resolution then recurses forever. A group with a single non-shared
# key, every shared key pointing straight at it, cannot form that cycle (that key is the
# only one a union can be reversed onto, so it stays the root).

# The spec attributes PT2E compares before sharing implicitly (prepare._union_input_edge_with).
_IMPLICIT_SHARING_ATTRIBUTES = (
    "dtype", "is_dynamic", "quant_min", "quant_max", "qscheme", "ch_axis", "scale", "zero_point"
)
_ANCHORABLE = (QuantizationSpec, FixedQParamsQuantizationSpec, SharedQuantizationSpec)


def _same_attributes(a, b) -> bool:
    return all(
        (hasattr(a, name) and hasattr(b, name) and getattr(a, name) == getattr(b, name))
        or (not hasattr(a, name) and not hasattr(b, name))
        for name in _IMPLICIT_SHARING_ATTRIBUTES
    )


def _annotated_keys(graph: torch.fx.Graph) -> dict:
    """Edge ``(producer, consumer)`` or node -> spec, in the order PT2E visits them."""
    keys = {}
    for node in graph.nodes:
        annotation = node.meta.get(Q_ANNOTATION_KEY)
        if annotation is None:
            continue
        for producer, spec in annotation.input_qspec_map.items():
            if spec is not None:
                keys[(producer, node)] = spec
        if annotation.output_qspec is not None:
            keys[node] = annotation.output_qspec
    return keys


def _set_spec(key, spec: QuantizationSpecBase) -> None:
    if isinstance(key, tuple):
        producer, consumer = key
        consumer.meta[Q_ANNOTATION_KEY].input_qspec_map[producer] = spec
    else:
        key.meta[Q_ANNOTATION_KEY].output_qspec = spec


def anchor_shared_groups(model: torch.fx.GraphModule) -> None:
    """Gives each group of keys PT2E will share one observer for a single anchor.

    Groups are found as PT2E will find them (shared specs, then implicit sharing of
    equal specs along one producer's edges); a group holding a shared spec and more than
    one non-shared key, or a shared spec that points elsewhere than its non-shared key,
    gets its first non-shared key as anchor and every other key shares with it. The
    grouping is unchanged, so is the quantization: only the way it is written down.
    """
    keys = _annotated_keys(model.graph)
    parent = {key: key for key in keys}

    def find(key):
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def union(a, b) -> None:
        parent[find(a)] = find(b)

    def explicit_root(key):
        """The non-shared key a chain of shared specs ends at (None: no such key)."""
        seen = set()
        while isinstance(keys.get(key), SharedQuantizationSpec) and key not in seen:
            seen.add(key)
            key = keys[key].edge_or_node
        return key if key in keys and not isinstance(keys[key], SharedQuantizationSpec) else None

    roots = {key: explicit_root(key) for key in keys}
    for key, root in roots.items():
        if root is not None:
            union(key, root)
    for key in keys:
        if not isinstance(key, tuple) or roots[key] is None:
            continue
        producer, consumer = key
        if not getattr(consumer.meta[Q_ANNOTATION_KEY], "allow_implicit_sharing", True):
            continue
        others = [(producer, user) for user in producer.users if user is not consumer] + [producer]
        for other in others:
            if other in keys and roots[other] is not None and _same_attributes(keys[roots[key]], keys[roots[other]]):
                union(key, other)
    groups: dict = {}
    for key in keys:
        groups.setdefault(find(key), []).append(key)
    for members in groups.values():
        _anchor(members, keys)


def _anchor(members: list, keys: dict) -> None:
    plain = [key for key in members if not isinstance(keys[key], SharedQuantizationSpec)]
    shared = [key for key in members if isinstance(keys[key], SharedQuantizationSpec)]
    if not shared or not plain or not all(isinstance(keys[key], _ANCHORABLE) for key in members):
        return  # nothing shared explicitly (PT2E handles plain groups), or derived specs
    anchor = plain[0]
    if len(plain) == 1 and all(keys[key].edge_or_node == anchor for key in shared):
        return
    for key in members:
        if key != anchor:
            _set_spec(key, SharedQuantizationSpec(anchor))
