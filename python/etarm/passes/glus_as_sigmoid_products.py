"""GlusAsSigmoidProducts: writes ``glu(x, dim)`` as ``a * sigmoid(b)`` of x's two halves before annotation.

The INT lowering keeps glu whole with an int32 sigmoid gate (a TOSA GATHER for int8),
which Ethos-U55/U65 do not run. Their partitioner then leaves glu to edge lowering, which
decomposes it after quantization into slices, a sigmoid and a product that carry no
quantization parameters: the sigmoid stays on the CPU ("output is used unquantized") and
splits the graph (a Conformer's convolution module). Written out before annotation, the
slices share x's parameters, the sigmoid gets its fixed 0..1 range (an int8 TABLE) and the
product its own observer: all of it runs on those NPUs, with the sigmoid's one extra
rounding in the quantized model too.

Only int8 activations: an int16 sigmoid needs an int16 TABLE, which those NPUs lack either way.
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.passes.base import AnnotationPass
from etarm.passes.node_builder import NodeBuilder, replace_float_nodes
from etarm.passes.split_composites import int8_activations

aten = torch.ops.aten


def _dim(node: torch.fx.Node) -> int:
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", -1)
    return dim % node.args[0].meta["val"].dim()


def _sigmoid_product(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    x, dim = node.args[0], _dim(node)
    half = x.meta["val"].shape[dim] // 2
    a = add(aten.slice.Tensor, x, dim, 0, half)
    b = add(aten.slice.Tensor, x, dim, half, 2 * half)
    return add(aten.mul.Tensor, a, add(aten.sigmoid.default, b))


class GlusAsSigmoidProducts(AnnotationPass):
    """Writes int8 glu as a product of x's first half with the sigmoid of its second (Ethos-U55/U65 have no GATHER)."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return glus_as_sigmoid_products(model, lambda node: int8_activations(quantizer.config_for(node)))


def glus_as_sigmoid_products(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces each glu ``wants`` accepts; returns how many."""
    return replace_float_nodes(model, {"aten.glu.default": (_sigmoid_product, lambda node: True)}, wants)
