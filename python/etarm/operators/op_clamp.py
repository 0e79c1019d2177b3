"""aten.clamp: TOSA CLAMP for scalar bounds, MAXIMUM/MINIMUM for tensor bounds; quantized
(INT, scalar bounds), a CLAMP in the output's integer domain (clamping.py). A quantized
clamp by tensors is written as maximum/minimum before annotation (DecomposeForAnnotation).

torch computes min(max(x, low), high), so low > high gives high everywhere; CLAMP needs
low <= high, so that case (and integer tensors, which CLAMP takes only as int8) uses
MAXIMUM then MINIMUM as well.
"""

import numbers

from etarm.lowering.clamping import bound_reason, define_clamp
from etarm.lowering.compose import Composer
from etarm.lowering.dtype_rules import FLOAT_OR_INT, dtype_reason, is_float
from etarm.lowering.float_math import INF
from etarm.lowering.pointwise import operand_reason
from etarm.lowering.quantized import is_int_spec, is_quantized
from etarm.lowering.registry import NodeVisitor, register
from etarm.op_names import op_name


def _bounds(node):
    low = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
    high = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
    return low, high


@register
class ClampVisitor(NodeVisitor):
    targets = ("aten.clamp.default", "aten.clamp.Tensor")
    profiles = frozenset({"FP", "INT"})
    handles_qparams = True

    def check(self, node, spec):
        out = node.meta["val"].dtype
        low, high = _bounds(node)
        bounds = [b for b in (low, high) if b is not None]
        if not bounds:
            return f"{op_name(node.target)}: neither min nor max is given"
        if is_int_spec(spec) and is_float(out):  # quantized; integer data clamps as integers
            return bound_reason(node, ("min", low), ("max", high))
        return dtype_reason(op_name(node.target), out, spec, FLOAT_OR_INT) or operand_reason(
            node, spec, [node.args[0], *bounds], out
        )

    def define(self, node, graph):
        if is_quantized(node):
            return define_clamp(graph, node, *_bounds(node))
        c = Composer(graph, node)
        x = c.convert(node.args[0], c.out_dtype)
        low, high = _bounds(node)
        scalar_bounds = all(b is None or isinstance(b, numbers.Number) for b in (low, high))
        if scalar_bounds and is_float(c.out_meta.dtype):
            low = -INF if low is None else float(low)
            high = INF if high is None else float(high)
            if low <= high:
                return c.finish(c.clamp(x, low, high))
        if low is not None:
            x = c.maximum(x, self._bound(c, low))
        if high is not None:
            x = c.minimum(x, self._bound(c, high))
        c.finish(x)

    @staticmethod
    def _bound(c, bound):
        if isinstance(bound, numbers.Number):
            return c.tensor(bound, c.out_dtype)
        return c.convert(bound, c.out_dtype)


