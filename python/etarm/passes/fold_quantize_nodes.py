"""FoldQuantizeNodes: the INT profile's first pass.

A partition of a PT2E-quantized model reads int8/int16 tensors and runs each float
op between dequantize (DQ) and quantize (Q) nodes. This pass removes every Q/DQ
node, records its parameters on the neighbouring op (etarm.tosa_ir.quant_params), and
rewires the ops onto the integer tensors, so visitors see ``int -> op -> int`` with
the scale and zero point of each side in ``node.meta``. The op's ``meta["val"]``
takes the integer dtype, so ``graph.out(node)`` creates an integer tensor.
"""

from __future__ import annotations

import operator

import torch
from executorch.exir._program_utils import _get_updated_graph_signature
from torch.export import ExportedProgram

from etarm.errors import EtarmError
from etarm.passes.base import PartitionPass
from etarm.tosa_ir.quant_params import (
    OUTPUT_QPARAMS,
    QuantParams,
    flat_args,
    has_input_qparams,
    is_dequantize,
    is_quantize,
    qparams_of,
    set_input_qparams,
    set_output_qparams,
)


def constant_reader(program: ExportedProgram):
    """Reads the value of a lifted constant placeholder (per-channel scales, zero points)."""
    signature = program.graph_signature
    sources = {
        **signature.inputs_to_parameters,
        **signature.inputs_to_buffers,
        **signature.inputs_to_lifted_tensor_constants,
    }

    def read(node: torch.fx.Node) -> torch.Tensor | None:
        target = sources.get(node.name)
        if target is None:
            return None
        if target in program.state_dict:
            return program.state_dict[target]
        return program.constants.get(target)

    return read


def _record_output(producer: torch.fx.Node, qparams: QuantParams) -> None:
    """``producer`` now writes the integer tensor described by ``qparams``."""
    if producer.op == "call_function" and producer.target is operator.getitem:
        # One result of a multi-output op: the op's result list changes dtype too.
        parent, index = producer.args
        values = list(parent.meta["val"])
        values[index] = values[index].to(qparams.dtype)
        parent.meta["val"] = values
        _set_output(parent, index, qparams)
    _set_output(producer, 0, qparams)
    producer.meta["val"] = producer.meta["val"].to(qparams.dtype)


def _set_output(node: torch.fx.Node, index: int, qparams: QuantParams) -> None:
    known = node.meta.get(OUTPUT_QPARAMS, {}).get(index)
    if known is not None and not known.same_values(qparams):
        raise EtarmError(f"internal: {node.name} is quantized twice with different parameters")
    set_output_qparams(node, index, qparams)


class FoldQuantizeNodes(PartitionPass):
    """Removes Q/DQ nodes, recording their parameters on the ops, which then read and write integers."""

    def rewrite(self, program: ExportedProgram) -> None:
        graph = program.graph_module.graph
        read_constant = constant_reader(program)
        for dq in [n for n in graph.nodes if is_dequantize(n)]:
            qparams = qparams_of(dq, read_constant)
            source = dq.args[0]
            if source.op == "placeholder":
                _set_output(source, 0, qparams)
            for user in list(dq.users):
                for key, arg in flat_args(user):
                    if arg is dq:
                        set_input_qparams(user, key, qparams)
                user.replace_input_with(dq, source)
            graph.erase_node(dq)
        for q in [n for n in graph.nodes if is_quantize(n)]:
            if has_input_qparams(q, 0):
                # It quantized a dequantize: a requantize, lowered as a RESCALE (op_quantize_per_tensor.py).
                _set_output(q, 0, qparams_of(q, read_constant))
                continue
            producer = q.args[0]
            if producer.op == "placeholder":
                raise EtarmError(f"internal: {q.name} quantizes a partition input inside the partition")
            _record_output(producer, qparams_of(q, read_constant))
            q.replace_all_uses_with(producer)
            graph.erase_node(q)
        # The output node now names the ops, not the removed quantize nodes.
        program._graph_signature = _get_updated_graph_signature(program.graph_signature, program.graph_module)
