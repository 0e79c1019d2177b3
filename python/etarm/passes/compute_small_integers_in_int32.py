"""ComputeSmallIntegersInInt32: integer arithmetic on int8/int16 tensors runs in int32.

TOSA 1.0 defines ADD, SUB, MUL's result, MAXIMUM, MINIMUM, ABS, the comparisons and INTDIV
on int32 only, so a model that adds two int8 tensors (not a quantized model:
integer data) is computed as torch defines it: the operands are cast to int32, the op runs
there, and the result is cast back to int8/int16, which wraps like torch's own overflow.
Quantized nodes never meet this pass: in the edge graph they still compute in float. It runs
for INT-profile specifications only: the casts are INT-profile CASTs (on an FP-only one the
ops stay on the CPU, saying they do not take int8/int16).
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

from etarm.op_names import op_name
from etarm.passes.base import ProgramPass
from etarm.passes.dtype_casts import insert_cast, value_dtype
from etarm.passes.fake_values import compute_value, fake_mode_of

SMALL_INTEGERS = frozenset({torch.int8, torch.int16})
# Ops whose int32 result, cast back, is exactly torch's int8/int16 result.
WIDENED_OPS = frozenset(
    f"aten.{name}"
    for name in (
        "add.Tensor",
        "sub.Tensor",
        "mul.Tensor",
        "neg.default",
        "abs.default",
        "maximum.default",
        "minimum.default",
        "clamp.default",
        "clamp.Tensor",
        "eq.Tensor",
        "ne.Tensor",
        "gt.Tensor",
        "ge.Tensor",
        "lt.Tensor",
        "le.Tensor",
        "eq.Scalar",
        "ne.Scalar",
        "gt.Scalar",
        "ge.Scalar",
        "lt.Scalar",
        "le.Scalar",
        "div.Tensor_mode",
        "remainder.Tensor",
        "remainder.Scalar",
    )
)
WIDENING_CAST = "etarm_small_integer_widening_cast"


class ComputeSmallIntegersInInt32(ProgramPass):
    """Runs int8/int16 integer arithmetic in int32 between casts (TOSA computes it at int32 only)."""

    def transform(self, graph_module: torch.fx.GraphModule, program: ExportedProgram | None) -> bool:
        graph = graph_module.graph
        fake_mode = fake_mode_of(graph)
        changed = False
        for node in list(graph.nodes):
            if node.op != "call_function" or op_name(node.target) not in WIDENED_OPS:
                continue
            small = [arg for arg in node.all_input_nodes if value_dtype(arg) in SMALL_INTEGERS]
            if not small:
                continue
            for arg in small:
                node.replace_input_with(arg, insert_cast(graph, arg, torch.int32, before=node, marker=WIDENING_CAST))
            result_dtype = value_dtype(node)
            node.meta["val"] = compute_value(node, fake_mode)
            if result_dtype in SMALL_INTEGERS and value_dtype(node) != result_dtype:
                users = list(node.users)
                narrowed = insert_cast(graph, node, result_dtype, before=node.next, marker=WIDENING_CAST)
                for user in users:
                    user.replace_input_with(node, narrowed)
            changed = True
        return changed
