"""Skips ExecuTorch's re-tracing edge passes on graphs where they have nothing to rewrite.

``to_edge`` (and ``to_executorch``) run a chain of ExportPass rewrites, and each one re-traces the whole program
through fake tensors even when no node is of the kind it rewrites (about 0.3 s per pass on a
MobileNetV2). ``skip_idle_edge_passes()`` gives each pass below a test that reads the graph
once; where the test finds no node the pass would change, the pass returns the graph as it is.
Each test answers "has work" whenever it is unsure (higher-order ops and their subgraphs,
symbolic values, operands without metadata), so the pass then runs as usual.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch
from executorch.exir.delegate import executorch_call_delegate
from executorch.exir.dialects.edge._ops import EdgeOpOverload
from executorch.exir.passes.dim_order_ops_registry import DimOrderOpsMap
from executorch.exir.passes.legalize_portable_dim_order_pass import LegalizePortableDimOrderPass
from executorch.exir.passes.memory_format_ops_pass import MemoryFormatOpsPass
from executorch.exir.passes.normalize_transpose_pass import NormalizeTransposePass
from executorch.exir.passes.remove_mixed_type_operators import RemoveMixedTypeOperators
from executorch.exir.passes.replace_broken_ops_with_function_ops_pass import ReplaceBrokenOpsWithFunctionalOpsPass
from executorch.exir.passes.scalar_to_tensor_pass import ScalarToTensorPass
from executorch.exir.passes.sym_to_tensor_pass import SymToTensorPass
from torch._export.passes.replace_view_ops_with_view_copy_ops_pass import ReplaceViewOpsWithViewCopyOpsPass
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND
from torch.fx.passes.infra.pass_base import PassResult

_SYMBOLIC = (torch.SymInt, torch.SymFloat, torch.SymBool)

# RemoveMixedTypeOperators' operators; INT_TO_FLOAT promotes same-typed integers, so it has
# work there even when the operands agree.
_MIXED_TYPE_OPERATORS = {
    torch.ops.aten.add.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    torch.ops.aten.mul.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    torch.ops.aten.sub.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    torch.ops.aten.div.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT,
    torch.ops.aten.div.Tensor_mode: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    torch.ops.aten.minimum.default: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
}


def _schema_operands(node: torch.fx.Node) -> Iterator[tuple[object, torch.Argument]]:
    """(value, schema argument) for each argument ``node`` passes, as ExecuTorch's map_args pairs them."""
    for index, argument in enumerate(node.target._schema.arguments):
        if argument.name in node.kwargs:
            yield node.kwargs[argument.name], argument
        elif not argument.kwarg_only and index < len(node.args):
            yield node.args[index], argument


def _is_tensor_argument(argument: torch.Argument) -> bool:
    return isinstance(argument.type, torch.TensorType)


def _value(node: object):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def _transposes_by_t(node: torch.fx.Node) -> bool:
    return node.target == torch.ops.aten.t.default


def _is_aliasing_view(node: torch.fx.Node) -> bool:
    return node.target.is_view


def _returns_a_view(node: torch.fx.Node) -> bool:
    """The view-to-copy pass's test: the first argument is aliased and not written (or _unsafe_view)."""
    arguments = node.target._schema.arguments
    alias = arguments[0].alias_info if arguments else None
    return node.target == torch.ops.aten._unsafe_view.default or (alias is not None and not alias.is_write)


def _passes_python_scalar_as_tensor(node: torch.fx.Node) -> bool:
    return any(
        _is_tensor_argument(argument) and isinstance(value, (bool, int, float))
        for value, argument in _schema_operands(node)
    )


def _no_node_alone(node: torch.fx.Node) -> bool:
    """SymToTensorPass rewrites only symbolic values, which has_work counts as work in any graph."""
    return False


def _mixes_operand_types(node: torch.fx.Node) -> bool:
    kind = _MIXED_TYPE_OPERATORS.get(node.target)
    if kind is None or len(node.args) <= 1:
        return False
    values = [_value(argument) for argument in node.args]
    if not all(isinstance(value, torch.Tensor) for value in values):
        return True  # a scalar or an operand without metadata: let the pass decide
    dtypes = {value.dtype for value in values}
    if len(dtypes) > 1:
        return True
    return kind == ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT and not next(iter(dtypes)).is_floating_point


def _takes_memory_format(node: torch.fx.Node) -> bool:
    return isinstance(node.target, EdgeOpOverload) and node.target in DimOrderOpsMap


def _reads_input_in_default_order(node: torch.fx.Node) -> bool:
    return node.target in LegalizePortableDimOrderPass._target_ops


# Each pass, and the nodes it rewrites.
_REWRITES: dict[type, Callable[[torch.fx.Node], bool]] = {
    ReplaceViewOpsWithViewCopyOpsPass: _returns_a_view,
    NormalizeTransposePass: _transposes_by_t,
    ReplaceBrokenOpsWithFunctionalOpsPass: _is_aliasing_view,
    ScalarToTensorPass: _passes_python_scalar_as_tensor,
    SymToTensorPass: _no_node_alone,
    RemoveMixedTypeOperators: _mixes_operand_types,
    MemoryFormatOpsPass: _takes_memory_format,
    LegalizePortableDimOrderPass: _reads_input_in_default_order,  # to_executorch's
}


def has_work(graph_module: torch.fx.GraphModule, rewrites: Callable[[torch.fx.Node], bool]) -> bool:
    """False only when no operator node of ``graph_module`` is one ``rewrites`` selects and
    nothing in it is beyond the tests (higher-order ops, nested graphs, symbolic values)."""
    if any(isinstance(module, torch.fx.GraphModule) for _, module in graph_module.named_children()):
        return True
    for node in graph_module.graph.nodes:
        if isinstance(_value(node), _SYMBOLIC):
            return True
        if node.op != "call_function":
            continue
        if node.target is executorch_call_delegate:
            continue  # the passes leave a delegate call and its lowered module as they are
        if isinstance(node.target, torch._ops.HigherOrderOperator):
            return True
        if isinstance(node.target, (torch._ops.OpOverload, EdgeOpOverload)) and rewrites(node):
            return True
    return False


@contextlib.contextmanager
def skip_idle_edge_passes():
    """Within: each pass of ``_REWRITES`` returns its input unchanged where it has no work."""
    originals = {cls: cls.__dict__.get("call") for cls in _REWRITES}

    def guarded(cls, rewrites):
        run = cls.call

        def call(self, graph_module):
            if not has_work(graph_module, rewrites):
                return PassResult(graph_module, False)
            return run(self, graph_module)

        return call

    try:
        for cls, rewrites in _REWRITES.items():
            cls.call = guarded(cls, rewrites)
        yield
    finally:
        for cls, original in originals.items():
            if original is None:
                del cls.call
            else:
                cls.call = original
