"""DivisionsAsReciprocalProducts: writes ``x / y`` by a tensor as ``x * reciprocal(y)`` before annotation.

The INT lowering of a division by a tensor needs TOSA INTDIV, which Ethos-U55/U65 do not
run. Written as a product before annotation, the reciprocal is observed and quantized on
its own (its range is that of 1 / y over the calibration data) and lowers to an int8
TABLE, the product to a MUL: both run on those NPUs. Its one extra rounding (the
reciprocal's grid) is in the quantized model too, so the lowering still matches it.

Divisors near zero: the reciprocal's range reaches 1 / (smallest |y| calibrated), so
small divisors coarsen its grid as they would any activation's. A divisor that is exactly
0 (or quantizes to 0) looks up 1 / 0 = +inf, which the table saturates to the largest
reciprocal calibrated (the observers ignore infinities): x / 0 is x times that, clamped to
the output's range, so it saturates at the end of that range on the side of x's sign
(torch: +-inf), and 0 / 0 is 0 (torch: NaN; calibration data computing 0 / 0 fails, as
for any model computing NaN).

Only int8 activations: an int16 reciprocal needs an exact 65536-entry look-up, which
those NPUs lack, so an int16 division stays whole (and on the CPU, with the INTDIV reason).
Divisions by one-value constants stay whole too: they lower to one RESCALE.
"""

from __future__ import annotations

from typing import Callable

import torch

from etarm.passes.base import AnnotationPass
from etarm.passes.node_builder import NodeBuilder, replace_float_nodes
from etarm.passes.split_composites import int8_activations

aten = torch.ops.aten


def _reciprocal_product(add: NodeBuilder, node: torch.fx.Node) -> torch.fx.Node:
    dividend, divisor = node.args[:2]
    return add(aten.mul.Tensor, dividend, add(aten.reciprocal.default, divisor))


def _by_tensor(node: torch.fx.Node) -> bool:
    divisor = node.args[1]
    if not isinstance(divisor, torch.fx.Node) or not isinstance(divisor.meta.get("val"), torch.Tensor):
        return False
    one_value_constant = divisor.op == "get_attr" and divisor.meta["val"].numel() == 1
    return divisor.meta["val"].dtype.is_floating_point and not one_value_constant


class DivisionsAsReciprocalProducts(AnnotationPass):
    """Writes each int8-quantized division by a float tensor as a product with its reciprocal
    (for NPUs without INTDIV: the Ethos-U55/U65 pipeline adds it)."""

    def run(self, model: torch.fx.GraphModule, quantizer) -> int:
        return divisions_as_reciprocal_products(model, lambda node: int8_activations(quantizer.config_for(node)))


def divisions_as_reciprocal_products(model: torch.fx.GraphModule, wants: Callable[[torch.fx.Node], bool]) -> int:
    """Replaces each division by a tensor that ``wants`` accepts; returns how many."""
    return replace_float_nodes(model, {"aten.div.Tensor": (_reciprocal_product, _by_tensor)}, wants)
