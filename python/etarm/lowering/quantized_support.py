"""Which nodes of a PT2E-quantized graph an INT-profile TOSA partition may take.

In a quantized edge graph every float op sits between dequantize (DQ) and quantize
(Q) nodes. For the INT profile:

- an op is delegated only if it has quantization parameters: each float input comes
  from a DQ and each float output goes only to Q nodes, or the edge is "direct" (no
  Q/DQ, e.g. conv -> fused relu, or reshape -> clone + view after decomposition) and
  the parameters reach it from the Q/DQ nodes at the ends of its chain;
- a Q node is delegated when the op it quantizes is, a DQ node when every op it feeds
  is. So the Q on each partition input and the DQ on each output stay on CPU, and
  partitions read and write int8/int16 tensors of known scale and zero point. A Q of a
  DQ (a requantize) is an op of its own, lowered as a RESCALE.

Only float values carry quantization parameters: bool and integer values (comparison
results, indices) cross partition boundaries and direct edges as they are.

``quantization_reason`` is the node-local half (also used before decomposition);
``QuantizedRegion`` checks the direct-edge chains and places the Q/DQ nodes. It never
changes the graph: DuplicateSharedDequantizersPass (an edge transform pass) gives each
consumer its own DQ first; a DQ still shared is delegated only with all its consumers,
in one partition.
"""

from __future__ import annotations

import operator
from typing import Callable

import torch

from etarm.lowering.registry import visitor_for
from etarm.op_names import op_name
from etarm.tosa_ir.quant_params import (
    is_dequantize,
    is_dynamic_qdq,
    is_fused_activation,
    is_qdq,
    is_quantize,
    qdq_dtype,
    qparams_of,
)
from etarm.tosa_ir.specification import TosaSpecification

# Why boundary Q/DQ nodes stay on CPU (a partition's integer inputs and outputs).
INPUT_QUANTIZE_REASON = "quantizes a float tensor computed on CPU (quantizing a partition input runs on CPU)"
OUTPUT_DEQUANTIZE_REASON = "feeds a consumer on CPU (dequantizing a partition output runs on CPU)"


def is_requantize(node: torch.fx.Node) -> bool:
    """A quantize of a dequantize: integer to integer with new parameters (a RESCALE)."""
    return is_quantize(node) and is_dequantize(node.args[0])


def is_pass_through(node) -> bool:
    """An op whose visitor moves integer values unchanged (data movement: reshape, slice, ...)."""
    if not isinstance(node, torch.fx.Node) or node.op != "call_function" or is_qdq(node):
        return False
    visitor = visitor_for(node)
    return visitor is not None and "INT" in visitor.profiles and not visitor.handles_qparams


def is_direct_edge(producer: torch.fx.Node, consumer: torch.fx.Node) -> bool:
    """A float edge with no Q/DQ that integer lowering can still take: the consumer is an
    activation fused into the producer, or either side only moves values (edge
    decompositions such as reshape -> clone + view create these). The value's
    parameters are then those of the Q/DQ nodes at the ends of the chain."""
    if producer.op != "call_function" or is_qdq(producer) or len(producer.users) != 1 or not _is_float(producer):
        return False  # non-float values (bool masks, indices) carry no parameters
    if consumer.op != "call_function":
        return False  # the program's output: a float value leaves the partition, which writes integers
    source = producer.args[0] if producer.target is operator.getitem else producer
    return is_fused_activation(consumer) or is_pass_through(consumer) or is_pass_through(source)


def uses_quantized_region(spec: TosaSpecification) -> bool:
    """INT-only specifications lower integer tensors: float ops need quantization parameters."""
    return spec.supports_int() and not spec.supports_fp()


def _is_float(node: torch.fx.Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point


def _node_args(node: torch.fx.Node) -> list[torch.fx.Node]:
    found = []
    for arg in node.args:
        if isinstance(arg, torch.fx.Node):
            found.append(arg)
        elif isinstance(arg, (list, tuple)):
            found.extend(a for a in arg if isinstance(a, torch.fx.Node))
    return found


def _results(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The fx nodes carrying ``node``'s results: itself, or its getitem users."""
    if isinstance(node.meta.get("val"), (list, tuple)):
        return [u for u in node.users if u.op == "call_function" and u.target is operator.getitem]
    return [node]


def _dtype_reason(dtype: torch.dtype, spec: TosaSpecification, what: str) -> str | None:
    if dtype == torch.int8 or dtype == torch.int32:
        return None
    if dtype == torch.int16:
        if spec.has_extension("int16"):
            return None
        return f"{what} is quantized to int16, which needs the TOSA int16 extension (target TOSA-1.0+INT+int16)"
    return f"{what} is quantized to {str(dtype).replace('torch.', '')}, which TOSA INT does not support"


def _output_quantizers(result: torch.fx.Node) -> list[torch.fx.Node] | None:
    """The Q nodes that consume ``result``, or None if some other node uses it."""
    users = list(result.users)
    if users and all(is_quantize(u) for u in users):
        return users
    return None


def quantization_reason(node: torch.fx.Node, spec: TosaSpecification) -> str | None:
    """Why the op ``node`` cannot run on integer tensors (None: it has quantization parameters)."""
    input_params = []
    for arg in _node_args(node):
        if not _is_float(arg):
            continue
        if is_dynamic_qdq(arg):
            return f"input '{arg.name}' is dynamically quantized (scale computed at run time), which TOSA cannot express"
        if is_dequantize(arg):
            reason = _dtype_reason(qdq_dtype(arg), spec, f"input '{arg.name}'")
            if reason:
                return reason
            input_params.append(arg)
            continue
        if is_direct_edge(arg, node):
            continue  # parameters shared along the edge (checked by QuantizedRegion)
        return f"input '{arg.name}' is not quantized (no quantization parameters)"
    if is_quantize(node):  # a requantize (DQ -> Q): integer in, integer out
        return _dtype_reason(qdq_dtype(node), spec, "output")
    output_params = []
    for result in _results(node):
        if not _is_float(result) or not result.users:
            continue
        quantizers = _output_quantizers(result)
        if quantizers is None:
            users = list(result.users)
            if len(users) == 1 and is_direct_edge(result, users[0]):
                continue
            other = next(u for u in users if not is_quantize(u))
            return f"output is used unquantized by '{other.name}'"
        if len({q.args[1:] for q in quantizers}) > 1:
            return "output is quantized with different parameters by different users"
        reason = _dtype_reason(qdq_dtype(quantizers[0]), spec, "output")
        if reason:
            return reason
        output_params.append(quantizers[0])
    return _shared_params_reason(node, input_params, output_params)


def _shared_params_reason(node: torch.fx.Node, dequantizers: list, quantizers: list) -> str | None:
    """A visitor that moves integer values unchanged needs one set of parameters."""
    visitor = visitor_for(node)
    if visitor is None or visitor.handles_qparams:
        return None
    signatures = {_per_tensor_signature(n) for n in dequantizers + quantizers}
    if len(signatures) > 1:
        return (
            f"{op_name(node.target)} moves integer values unchanged, but its inputs and output "
            "are quantized with different parameters"
        )
    return None


def _per_tensor_signature(node: torch.fx.Node):
    """Comparable parameters of a Q/DQ node (per-channel ones by their argument nodes)."""
    if op_name(node.target).endswith("per_channel.default"):
        return tuple(a.name if isinstance(a, torch.fx.Node) else a for a in node.args[1:])
    params = qparams_of(node)
    return (float(params.scale), int(params.zero_point), params.qmin, params.qmax, params.dtype)


class QuantizedRegion:
    """Support decisions for every node of one graph, Q/DQ nodes included.

    ``op_reason`` is the per-op check (registry, user checks and ``quantization_reason``);
    ``forced_reasons`` keep more ops on CPU (the partitioner's second look, see
    ``split_dequantizers``). The graph is only read.
    """

    def __init__(
        self,
        graph_module: torch.fx.GraphModule,
        op_reason: Callable[[torch.fx.Node], "str | None"],
        forced_reasons: "dict[str, str] | None" = None,
    ):
        self.reasons: dict[str, str | None] = {}
        nodes = [n for n in graph_module.graph.nodes if n.op == "call_function" and n.target is not operator.getitem]
        self._shared_dequantizers = [n for n in nodes if is_dequantize(n) and len(n.users) > 1]
        for node in nodes:
            if not is_qdq(node) or is_requantize(node):
                self.reasons[node.name] = op_reason(node)
        for name, reason in (forced_reasons or {}).items():
            if self.reasons.get(name, "") is None:
                self.reasons[name] = reason
        self._settle(nodes)
        for node in nodes:
            if is_quantize(node) and not is_requantize(node):
                producer = node.args[0]
                if producer.op == "call_function" and producer.target is operator.getitem:
                    producer = producer.args[0]
                delegated = producer.name in self.reasons and self.reasons[producer.name] is None and not is_qdq(producer)
                self.reasons[node.name] = None if delegated else INPUT_QUANTIZE_REASON
            elif is_dequantize(node):
                self.reasons[node.name] = None if self._all_users_delegated(node) else OUTPUT_DEQUANTIZE_REASON

    def _all_users_delegated(self, node: torch.fx.Node) -> bool:
        return bool(node.users) and all(self.reasons.get(u.name, "") is None for u in node.users)

    def _settle(self, nodes: list[torch.fx.Node]) -> None:
        """Values on direct edges get their parameters from the Q/DQ nodes of their chain.

        Each such value must reach one (all of them equal where values pass through
        unchanged), and ops joined by a direct edge are delegated together or not at all;
        so are the consumers of one DQ node (it folds into all of them or none).
        """
        supported = [n for n in nodes if self.reasons.get(n.name, "") is None and not is_qdq(n)]
        for reason, members in _value_class_problems(supported):
            for member in members:
                if self.reasons.get(member.name, "") is None:
                    self.reasons[member.name] = reason
        changed = True
        while changed:  # a rejected op takes the ops it shares a direct edge or a DQ with along
            changed = False
            for node in nodes:
                for producer in _node_args(node):
                    if producer.op != "call_function" or not is_direct_edge(producer, node):
                        continue
                    source = producer.args[0] if producer.target is operator.getitem else producer
                    pair = [source, node]
                    rejected = [n for n in pair if self.reasons.get(n.name) is not None]
                    for other in pair:
                        if rejected and other not in rejected and other.name in self.reasons:
                            self.reasons[other.name] = (
                                f"shares quantization parameters with '{rejected[0].name}', which stays on CPU"
                            )
                            changed = True
            for dq in self._shared_dequantizers:
                if self._all_users_delegated(dq):
                    continue
                cpu_user = next(u for u in dq.users if self.reasons.get(u.name, "") is not None)
                for user in dq.users:
                    if self.reasons.get(user.name, "") is None:
                        self.reasons[user.name] = _shared_dequantizer_reason(dq, f"'{cpu_user.name}', which stays on CPU")
                        changed = True

    def reason(self, node: torch.fx.Node) -> str | None:
        return self.reasons.get(node.name, f"no TOSA lowering for {op_name(node.target)}")

    def split_dequantizers(self, partitions) -> dict[str, str]:
        """Ops to keep on CPU because a DQ they share landed in a partition without them.

        ``partitions`` are the proposed ones (``.id``, ``.nodes``). A DQ folds into its
        consumers' integer inputs, so they must all be in its partition; the partitioner
        may still split them apart (merging them all would form a cycle through CPU ops).
        """
        partition_of = {node: partition.id for partition in partitions for node in partition.nodes}
        forced = {}
        for dq in self._shared_dequantizers:
            if self.reasons.get(dq.name) is not None:
                continue
            if len({partition_of.get(n) for n in [dq, *dq.users]}) > 1:
                for user in dq.users:
                    forced[user.name] = _shared_dequantizer_reason(dq, "ops in other partitions")
        return forced


def _shared_dequantizer_reason(dq: torch.fx.Node, other: str) -> str:
    return (
        f"reads '{dq.name}', a dequantize shared with {other} (DuplicateSharedDequantizersPass, "
        "an edge transform pass, gives each consumer its own)"
    )


def _value_class_problems(ops: list[torch.fx.Node]) -> list[tuple[str, list[torch.fx.Node]]]:
    """Classes of float values that must share parameters, and what is wrong with each.

    Values are named by the node producing them; non-float values (bool masks, integer
    indices) belong to no class. A pass-through op or fused activation
    puts its output in its inputs' class; DQ outputs and values read only by Q nodes
    carry parameters (anchors). Every class an op touches needs an anchor, and all of
    a class's anchors must agree.
    """
    parent: dict[str, str] = {}

    def find(name):
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    touching: dict[str, list] = {}
    for op in ops:
        values = [a for a in _node_args(op) if _is_float(a)] + [r for r in _results(op) if _is_float(r) and r.users]
        for value in values:
            touching.setdefault(value.name, []).append(op)
            find(value.name)
        if (is_pass_through(op) or is_fused_activation(op)) and values:
            for value in values[1:]:  # float values only: a bool result (a comparison's) has no parameters
                parent[find(value.name)] = find(values[0].name)
    anchors: dict[str, set] = {}
    class_ops: dict[str, dict] = {}
    for name in list(parent):
        root = find(name)
        anchors.setdefault(root, set())
        for op in touching.get(name, []):
            class_ops.setdefault(root, {})[op.name] = op
    for op in ops:
        for value in [a for a in _node_args(op) if _is_float(a)] + _results(op):
            if is_dequantize(value):
                anchors[find(value.name)].add(_per_tensor_signature(value))
            elif value.name in parent and _output_quantizers(value):
                anchors[find(value.name)].update(_per_tensor_signature(q) for q in value.users)
    problems = []
    for root, signatures in anchors.items():
        ops_in_class = list(class_ops.get(root, {}).values())
        if not signatures:
            names = ", ".join(sorted({op.name for op in ops_in_class}))
            problems.append((f"no quantize/dequantize node gives parameters to the values of {names}", ops_in_class))
        elif len(signatures) > 1 and any(is_pass_through(op) for op in ops_in_class):
            problems.append(("values move unchanged between different quantization parameters", ops_in_class))
    return problems
